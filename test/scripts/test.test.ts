import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TIMINGS, jobsFrom, testCommand } from "../../scripts/test.ts";
import { tempFolder } from "../helpers/workspace.ts";

test("one bun test process per core, each file in a fresh global, the slowest files first", () => {
  expect(testCommand(2, ["test/core"]).slice(1)).toEqual(["test", "--timeout=30000", "--parallel=2", `--timings=${TIMINGS}`, "test/core"]);
  expect(testCommand(1, []).slice(1)).toEqual(["test", "--timeout=30000"]);
  expect(jobsFrom({}, 2)).toBe(2);
  expect(jobsFrom({ GLASSBOX_TEST_JOBS: "1" }, 2)).toBe(1);
  expect(() => jobsFrom({ GLASSBOX_TEST_JOBS: "two" }, 2)).toThrow('GLASSBOX_TEST_JOBS must be a whole number of at least 1, not "two"');
});

// A file renamed since the timings were measured only starts in the wrong order: bun ignores the stale name.
test("the timings file is in bun's format, a time for each test file", () => {
  const root = join(import.meta.dir, "..", "..");
  const timings = JSON.parse(readFileSync(join(root, TIMINGS), "utf8")) as { version: number; files: Record<string, number> };
  expect(timings.version).toBe(1);
  const files = Object.entries(timings.files);
  expect(files.length).toBeGreaterThan(100);
  expect(files.filter(([file, ms]) => !/^test\/.+\.test\.ts$/.test(file) || !Number.isInteger(ms) || ms < 0)).toEqual([]);
});

// Two processes ask for the same thing at once, as the two test processes of `npm test` do for the
// binary: one makes it, the other waits and gets the same result.
test("a shared thing is made once across processes", async () => {
  const shared = tempFolder("shared");
  const made = join(shared, "made.log");
  const script = `
    const { sharedOnce } = await import(${JSON.stringify(join(import.meta.dir, "..", "helpers", "shared-once.ts"))});
    const { appendFileSync } = await import("node:fs");
    const thing = await sharedOnce("thing", async (folder) => {
      appendFileSync(${JSON.stringify(made)}, process.pid + "\\n");
      await Bun.sleep(300);
      return { folder, by: process.pid };
    });
    console.log(JSON.stringify(thing));`;
  const run = () => Bun.spawn([process.execPath, "-e", script], { env: { ...process.env, GLASSBOX_TEST_SHARED: shared }, stdout: "pipe", stderr: "inherit" });
  const children = [run(), run()];
  const outputs = await Promise.all(children.map(async (child) => (await new Response(child.stdout).text()).trim()));
  expect(await Promise.all(children.map((child) => child.exited))).toEqual([0, 0]);
  expect(readFileSync(made, "utf8").trim().split("\n")).toHaveLength(1);
  expect(outputs[0]).toBe(outputs[1]!);
  expect(JSON.parse(outputs[0]!).folder).toBe(join(shared, "thing"));
});
