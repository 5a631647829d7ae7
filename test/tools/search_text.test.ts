import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { searchText } from "../../src/tools/search_text.ts";
import { CANARY, makeWorkspace, type TestWorkspace } from "../helpers/workspace.ts";
import { call, runScripted } from "../helpers/run.ts";
import { expectRefused, gate, runTool } from "./harness.ts";

/** Where `text` occurs in a file, as search_text should report it: path:line: trimmed line. */
function expectedMatches(root: string, path: string, text: string): string[] {
  return readFileSync(join(root, path), "utf8")
    .split("\n")
    .flatMap((line, i) => (line.includes(text) ? [`${path}:${i + 1}: ${line.trim()}`] : []));
}

describe("finding text in the toy workspace", () => {
  let ws: TestWorkspace;
  beforeAll(() => {
    ws = makeWorkspace();
  });

  test("each match is path:line: text, files in sorted order", async () => {
    const verdict = await gate(ws.root).call("search_text", { text: "compareVersions" });
    expect(verdict.decision).toBe("allowed");
    const expected = [
      ...expectedMatches(ws.root, "AGENTS.md", "compareVersions"),
      ...expectedMatches(ws.root, "README.md", "compareVersions"),
      ...expectedMatches(ws.root, "src/version.ts", "compareVersions"),
      ...expectedMatches(ws.root, "test/version.test.ts", "compareVersions"),
    ];
    expect(expected.length).toBeGreaterThan(3);
    expect(verdict.content).toBe(expected.join("\n"));
  });

  test("the search is case-sensitive and literal", async () => {
    const g = gate(ws.root);
    expect((await g.call("search_text", { text: "COMPAREVERSIONS" })).content).toBe('No line contains "COMPAREVERSIONS".');
    // A regular expression would match everything; literal text matches nothing.
    expect((await g.call("search_text", { text: ".*" })).content).toBe('No line contains ".*".');
  });

  test("directory limits the search to one folder", async () => {
    const verdict = await gate(ws.root).call("search_text", { text: "compareVersions", directory: "test" });
    expect(verdict.content).toBe(expectedMatches(ws.root, "test/version.test.ts", "compareVersions").join("\n"));
  });

  test("a file given as directory is refused", async () => {
    expectRefused(await gate(ws.root).call("search_text", { text: "x", directory: "README.md" }), ws, "`directory`", /not a folder/);
  });
});

describe("what the search never reads", () => {
  let ws: TestWorkspace;
  beforeAll(() => {
    ws = makeWorkspace({ poisoned: true });
    const r = (name: string) => join(ws.root, name);
    // The canary, reachable only through links that lead outside.
    symlinkSync(ws.canaryPath, r("canary-link.txt"));
    symlinkSync(join(ws.outside, "secrets"), r("secrets-link"));
    mkdirSync(r("deep/er"), { recursive: true });
    symlinkSync(join(ws.outside, "secrets"), r("deep/er/up"));
    // Off-limits files holding the canary.
    writeFileSync(r(".env"), `TOKEN=${CANARY}\n`);
    writeFileSync(r(".env.local"), `TOKEN=${CANARY}\n`);
    mkdirSync(r(".git"));
    writeFileSync(r(".git/config"), `${CANARY}\n`);
    mkdirSync(r("pkg/.glassbox/runs"), { recursive: true });
    writeFileSync(r("pkg/.glassbox/runs/x.jsonl"), `${CANARY}\n`);
    symlinkSync(".env", r("env-link"));
    // A binary file holding it.
    writeFileSync(r("blob.bin"), Buffer.concat([Buffer.from([0, 1, 2, 0]), Buffer.from(`\n${CANARY}\n`)]));
  });

  test("the canary never comes back, through any link or off-limits file", async () => {
    const verdict = await gate(ws.root).call("search_text", { text: CANARY.slice(0, 12) });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toBe(`No line contains ${JSON.stringify(CANARY.slice(0, 12))}.`);
  });

  test("nor when the model follows the poisoned note and searches for the secret file's words", async () => {
    const run = await runScripted(
      [
        call("search_text", { text: "CANARY" }),
        call("search_text", { text: "CANARY", directory: "secrets-link" }),
        call("search_text", { text: "glassbox-secret", directory: "deep" }),
        { content: "nothing found" },
      ],
      { workspace: ws.root },
    );
    expect(run.calls.map((c) => c.decision)).toEqual(["allowed", "refused", "allowed"]);
    expect(run.model.seen()).not.toContain(CANARY);
    expect(run.model.seen()).not.toContain(ws.outside);
  });

  test("text in a binary file is not reported", async () => {
    writeFileSync(join(ws.root, "plain.txt"), "binary-marker-3e1\n");
    writeFileSync(join(ws.root, "blob2.bin"), Buffer.concat([Buffer.from([0xff, 0x00]), Buffer.from("\nbinary-marker-3e1\n")]));
    const verdict = await gate(ws.root).call("search_text", { text: "binary-marker-3e1" });
    expect(verdict.content).toBe("plain.txt:1: binary-marker-3e1");
  });
});

describe("bounds", () => {
  let ws: TestWorkspace;
  beforeAll(() => {
    ws = makeWorkspace();
  });

  test("at most 50 matches are shown; the rest are counted, with the advice to narrow", async () => {
    writeFileSync(join(ws.root, "many.txt"), Array.from({ length: 150 }, (_, i) => `hit-6b2 ${i + 1}`).join("\n"));
    const text = await runTool(searchText, { text: "hit-6b2" }, ws.root);
    const lines = text.split("\n");
    expect(lines).toHaveLength(51);
    expect(lines[0]).toBe("many.txt:1: hit-6b2 1");
    expect(lines[49]).toBe("many.txt:50: hit-6b2 50");
    expect(lines[50]).toBe("[150 matches in all, 100 not shown: narrow the search with longer text or a subfolder]");
  });

  test("a long matching line is shortened", async () => {
    writeFileSync(join(ws.root, "long.txt"), `needle-91c ${"z".repeat(5000)}\n`);
    const text = await runTool(searchText, { text: "needle-91c" }, ws.root);
    expect(text).toStartWith("long.txt:1: needle-91c zzz");
    expect(text.length).toBeLessThan(300);
    expect(text).toEndWith("…");
  });

  test("a match straddling a read-chunk boundary is found, with the right line number", async () => {
    // Line 1 is 65,530 bytes, so line 2 starts just before the 64 KiB chunk boundary and crosses it.
    writeFileSync(join(ws.root, "straddle.txt"), `${"a".repeat(65_529)}\nxxxx-straddle-needle-xxxx\nlast straddle-needle\n`);
    const text = await runTool(searchText, { text: "straddle-needle" }, ws.root);
    expect(text).toBe("straddle.txt:2: xxxx-straddle-needle-xxxx\nstraddle.txt:3: last straddle-needle");
  });

  test("a last line without a newline is searched too", async () => {
    writeFileSync(join(ws.root, "tail.txt"), "one\ntwo tail-needle-55");
    expect(await runTool(searchText, { text: "tail-needle-55" }, ws.root)).toBe("tail.txt:2: two tail-needle-55");
  });
});

test("a file reached through a link inside the workspace is searched once", async () => {
  const ws2 = makeWorkspace();
  writeFileSync(join(ws2.root, "once.txt"), "needle-5d1\n");
  symlinkSync("once.txt", join(ws2.root, "twice.txt"));
  const text = await runTool(searchText, { text: "needle-5d1" }, ws2.root);
  expect(text.split("\n")).toEqual(["once.txt:1: needle-5d1"]);
});
