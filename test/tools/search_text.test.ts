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
    expect((await g.call("search_text", { text: "COMPAREVERSIONS" })).content).toBe('No line matches "COMPAREVERSIONS".');
    // A regular expression would match everything; literal text matches nothing.
    expect((await g.call("search_text", { text: ".*" })).content).toBe('No line matches ".*".');
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
    expect(verdict.content).toBe(`No line matches ${JSON.stringify(CANARY.slice(0, 12))}.`);
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
    expect(lines[50]).toBe("[150 matches in all, 100 not shown: narrow the search with a longer pattern, a glob or a subfolder]");
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

describe("regular expressions, case, globs and context", () => {
  let ws: TestWorkspace;
  beforeAll(() => {
    ws = makeWorkspace();
    mkdirSync(join(ws.root, "lib/deep"), { recursive: true });
    writeFileSync(join(ws.root, "lib/a.ts"), "const one = 1;\nexport function parseThing() {}\nconst two = 2;\n// PARSETHING in capitals\n");
    writeFileSync(join(ws.root, "lib/deep/b.md"), "parseThing is documented here\n");
    writeFileSync(join(ws.root, "lib/deep/c.ts"), "l1\nl2\nl3 parseThing()\nl4\nl5\nl6\nl7\nl8 parseThing(again)\nl9\n");
  });

  test("pattern is a regular expression; paths stay relative to the root whatever directory is", async () => {
    const text = await runTool(searchText, { pattern: "parse\\w+\\(\\)", directory: "lib" }, ws.root);
    expect(text).toBe("lib/a.ts:2: export function parseThing() {}\nlib/deep/c.ts:3: l3 parseThing()");
  });

  test("ignore_case finds every case", async () => {
    const text = await runTool(searchText, { pattern: "parsething", ignore_case: true, directory: "lib" }, ws.root);
    expect(text.split("\n").map((line) => line.split(":").slice(0, 2).join(":"))).toEqual(["lib/a.ts:2", "lib/a.ts:4", "lib/deep/b.md:1", "lib/deep/c.ts:3", "lib/deep/c.ts:8"]);
  });

  test("literal: true takes the pattern as text", async () => {
    expect(await runTool(searchText, { pattern: "parseThing()", literal: true, directory: "lib" }, ws.root)).toBe("lib/a.ts:2: export function parseThing() {}\nlib/deep/c.ts:3: l3 parseThing()");
  });

  test("a glob without a slash matches names at any depth, one with a slash paths from the root", async () => {
    const byName = await runTool(searchText, { pattern: "parseThing", glob: "*.md" }, ws.root);
    expect(byName).toBe("lib/deep/b.md:1: parseThing is documented here");
    const byPath = await runTool(searchText, { pattern: "parseThing", glob: "lib/*.ts" }, ws.root);
    expect(byPath).toBe("lib/a.ts:2: export function parseThing() {}");
    expect(await runTool(searchText, { pattern: "parseThing", glob: "*.py" }, ws.root)).toBe('No line matches "parseThing" in files matching "*.py".');
  });

  test("context_lines shows the lines around each match, -- between runs that do not touch, none between runs that do", async () => {
    const text = await runTool(searchText, { pattern: "parseThing", glob: "lib/deep/*", context_lines: 2 }, ws.root);
    expect(text).toBe(
      [
        "lib/deep/b.md:1: parseThing is documented here",
        "--",
        "lib/deep/c.ts-1- l1",
        "lib/deep/c.ts-2- l2",
        "lib/deep/c.ts:3: l3 parseThing()",
        "lib/deep/c.ts-4- l4",
        "lib/deep/c.ts-5- l5",
        "lib/deep/c.ts-6- l6",
        "lib/deep/c.ts-7- l7",
        "lib/deep/c.ts:8: l8 parseThing(again)",
        "lib/deep/c.ts-9- l9",
      ].join("\n"),
    );
  });

  test("context_lines above 5 is refused by the schema, naming it", async () => {
    const verdict = await gate(ws.root).call("search_text", { pattern: "x", context_lines: 6 });
    expect(verdict.decision).toBe("refused");
    expect(verdict.reason).toContain("context_lines");
  });

  test("a broken pattern is refused through the checkpoint, naming `pattern`", async () => {
    expectRefused(await gate(ws.root).call("search_text", { pattern: "parse(" }), ws, "`pattern`", /not a valid regular expression/);
  });

  test("a backreference is refused with a sentence saying why", async () => {
    expectRefused(await gate(ws.root).call("search_text", { pattern: "(l)\\1" }), ws, "`pattern`", /linear-time/);
  });
});

describe("what git ignores is never searched", () => {
  let ws: TestWorkspace;
  beforeAll(() => {
    ws = makeWorkspace();
    const r = (name: string) => join(ws.root, name);
    writeFileSync(r(".gitignore"), "dist/\n*.log\n");
    mkdirSync(r("dist/deep"), { recursive: true });
    writeFileSync(r("dist/deep/bundle.js"), "needle-ign-4c2\n");
    writeFileSync(r("debug.log"), "needle-ign-4c2\n");
    mkdirSync(r("node_modules/pkg"), { recursive: true });
    writeFileSync(r("node_modules/pkg/index.js"), "needle-ign-4c2\n");
    mkdirSync(r(".github/workflows"), { recursive: true });
    writeFileSync(r(".github/workflows/ci.yml"), "run: needle-ign-4c2\n");
    writeFileSync(r("untracked.txt"), "needle-ign-4c2\n");
  });

  test("only files git would show are searched: untracked ones and dotfolders too, not ignored ones or node_modules", async () => {
    expect(await runTool(searchText, { pattern: "needle-ign-4c2" }, ws.root)).toBe(".github/workflows/ci.yml:1: run: needle-ign-4c2\nuntracked.txt:1: needle-ign-4c2");
  });

  test("an ignored folder given as directory is refused, saying why", async () => {
    expectRefused(await gate(ws.root).call("search_text", { pattern: "x", directory: "dist/deep" }), ws, "`directory`", "`dist`", /ignored/);
    expectRefused(await gate(ws.root).call("search_text", { pattern: "x", directory: "node_modules" }), ws, "`directory`", /ignored/);
  });
});

test("a pattern that backtracks without end in JavaScript's own engine cannot hang the run", async () => {
  // (\w+\s?)+;$ against 40 a's and a "!" makes a backtracking engine try every way to split the
  // a's: JavaScriptCore's own limit gives up on such a line after 0.7 s on a quiet machine (about
  // 5 s on a loaded one), so 60 lines take it 40 s or more, against the child's 10 s; RE2JS takes
  // milliseconds. The search runs in a child process so that an engine that hangs fails this
  // test instead of the suite.
  const ws = makeWorkspace();
  writeFileSync(join(ws.root, "evil.txt"), `${"a".repeat(40)}!\n`.repeat(60));
  const script = `
    import { searchText } from ${JSON.stringify(join(import.meta.dir, "../../src/tools/search_text.ts"))};
    import { Workspace } from ${JSON.stringify(join(import.meta.dir, "../../src/files/workspace.ts"))};
    const plan = await searchText.plan({ pattern: "(\\\\w+\\\\s?)+;$", glob: "evil.txt" }, { workspace: new Workspace(${JSON.stringify(ws.root)}), signal: new AbortController().signal, todo: [], clock: null });
    console.log(await plan.execute());`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  expect(err).toBe("");
  expect(out.trim()).toBe('No line matches "(\\\\w+\\\\s?)+;$" in files matching "evil.txt".');
}, 30_000);

test("a file larger than 4 MiB is not searched, and the result names it", async () => {
  const ws = makeWorkspace();
  writeFileSync(join(ws.root, "huge.txt"), `needle-big-7a1\n${"x".repeat(4 * 1024 * 1024)}\n`);
  writeFileSync(join(ws.root, "small.txt"), "needle-big-7a1\n");
  expect(await runTool(searchText, { pattern: "needle-big-7a1" }, ws.root)).toBe("small.txt:1: needle-big-7a1\n[not searched, larger than 4 MiB: huge.txt]");
});
