/**
 * `glassbox tune`'s failures before any run: a server that does not answer (one line naming the
 * address, exit 1, nothing written) and usage errors (exit 2).
 */
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { glassbox } from "../helpers/cli.ts";
import { tempFolder } from "../helpers/workspace.ts";

test("a server that cannot be reached: one line naming the address, exit non-zero, nothing written", async () => {
  const out = join(tempFolder("tune-down"), "out");
  const result = await glassbox(["tune", "--model", "llamacpp:http://127.0.0.1:9", "--out", out], { env: { XDG_CONFIG_HOME: tempFolder("tune-config") } });
  expect(result.code).toBe(1);
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
  expect(result.stderr).toContain("cannot reach the model server at http://127.0.0.1:9");
  expect(existsSync(out)).toBe(false);
});

test("usage errors are exit 2", async () => {
  expect((await glassbox(["tune", "extra"])).code).toBe(2);
  const mixed = await glassbox(["tune", "--model", "scripted:x", "--tasks", "evals/tasks"]);
  expect(mixed.code).toBe(2);
  expect(mixed.stderr).toContain("tune runs its own battery");
});
