import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { defaultTools } from "../../src/tools/index.ts";
import { DEFAULT_COMPONENTS } from "../../src/protocol/components.ts";
import { join } from "node:path";
import { makeWorkspace } from "../helpers/workspace.ts";
import { call, runScripted } from "../helpers/run.ts";
import { expectRefused, gate, recordingApprover } from "./harness.ts";
import type { Approver } from "../../src/core/checkpoint.ts";

const read = (root: string, path: string) => readFileSync(join(root, path), "utf8");
const FILE = "one\ntwo\nthree\ntwo\nfour\n";

function setup(content = FILE) {
  const ws = makeWorkspace();
  writeFileSync(join(ws.root, "f.txt"), content);
  return ws;
}

describe("old must occur exactly once, checked before anyone is asked", () => {
  const rows: Array<[old: string, count: RegExp]> = [
    ["absent", /does not occur in f\.txt/],
    ["two", /occurs 2 times in f\.txt/],
    ["o", /occurs 4 times in f\.txt/], // one, two, two, four
    ["TWO", /does not occur/],
    ["two\nthree\ntwo\nfive", /does not occur/],
  ];
  for (const [old, count] of rows) {
    test(`old ${JSON.stringify(old)}`, async () => {
      const ws = setup();
      const { approver, requests } = recordingApprover("yes");
      const verdict = await gate(ws.root, { approver }).call("edit_file", { path: "f.txt", old, new: "X" });
      expectRefused(verdict, ws, "`old`", count);
      expect(requests).toHaveLength(0);
      expect(read(ws.root, "f.txt")).toBe(FILE);
    });
  }
});

describe("successful edits", () => {
  const rows: Array<[label: string, old: string, replacement: string, after: string, lines: string]> = [
    ["one line", "three", "3", "one\ntwo\n3\ntwo\nfour\n", "lines 3-3"],
    ["made unique by context", "three\ntwo", "three\nTWO", "one\ntwo\nthree\nTWO\nfour\n", "lines 3-4"],
    ["grows to more lines", "one\n", "one\none and a half\n", "one\none and a half\ntwo\nthree\ntwo\nfour\n", "lines 1-2"],
    ["a deletion", "three\n", "", "one\ntwo\ntwo\nfour\n", "lines 3-3"],
    ["replacement patterns stay literal", "four", "$&-$1-$$", "one\ntwo\nthree\ntwo\n$&-$1-$$\n", "lines 5-5"],
  ];
  for (const [label, old, replacement, after, lines] of rows) {
    test(label, async () => {
      const ws = setup();
      const { approver, requests } = recordingApprover("yes");
      const verdict = await gate(ws.root, { approver }).call("edit_file", { path: "f.txt", old, new: replacement });
      expect(verdict.decision).toBe("allowed");
      // The edited region, numbered like read_file, with two lines around it, worked out from the file.
      const [first, last] = lines.slice("lines ".length).split("-").map(Number) as [number, number];
      const all = after.split("\n");
      const from = Math.max(1, first - 2);
      const to = Math.min(all.length, last + 2);
      const region = all.slice(from - 1, to).map((text, index) => `${String(from + index).padStart(6)}  ${text}`);
      expect(verdict.content).toBe(`Edited f.txt: ${lines} now read (with 2 lines around):\n${region.join("\n")}`);
      expect(read(ws.root, "f.txt")).toBe(after);
      expect(requests).toHaveLength(1);
      expect(requests[0]!.target).toBe("f.txt");
    });
  }

  test("the demo's fix through the loop: allowed by rule, the file changes, the model sees the result", async () => {
    const ws = makeWorkspace();
    const old = 'return text.trim().replace(/^v/, "").split(".");';
    const replacement = 'return text.trim().replace(/^v/, "").split(".").map(Number);';
    const run = await runScripted([call("edit_file", { path: "src/version.ts", old, new: replacement }), { content: "fixed" }], {
      workspace: ws.root,
      allow: ["edit_file:src/**"],
    });
    expect(run.calls[0]!.decision).toBe("allowed");
    expect(read(ws.root, "src/version.ts")).toContain(replacement);
    expect(read(ws.root, "src/version.ts")).not.toContain(old);
    expect(run.model.seen()).toContain("Edited src/version.ts: lines 3-3 now read (with 2 lines around):");
    expect(run.model.seen()).toContain('     3    return text.trim().replace(/^v/, "").split(".").map(Number);');
  });
});

describe("edits that must not happen", () => {
  test("a denied edit leaves the file unchanged", async () => {
    const ws = setup();
    const { approver, requests } = recordingApprover("no");
    const verdict = await gate(ws.root, { approver }).call("edit_file", { path: "f.txt", old: "three", new: "3" });
    expect(verdict.decision).toBe("denied");
    expect(verdict.content).toStartWith("Denied: The user did not approve edit_file on f.txt");
    expect(requests).toHaveLength(1);
    expect(read(ws.root, "f.txt")).toBe(FILE);
  });

  test("a deny rule beats an allow rule for edits too", async () => {
    const ws = setup();
    writeFileSync(join(ws.root, "bun.lock"), "lock v1\n");
    const verdict = await gate(ws.root, { allow: ["edit_file"], deny: ["edit_file:**/*.lock"] }).call("edit_file", {
      path: "bun.lock",
      old: "v1",
      new: "v2",
    });
    expect(verdict.decision).toBe("denied");
    expect(read(ws.root, "bun.lock")).toBe("lock v1\n");
  });

  test("a file changed by the person while approval was pending is not overwritten with the stale text", async () => {
    const ws = setup();
    const approver: Approver = async () => {
      writeFileSync(join(ws.root, "f.txt"), FILE + "added by the person\n");
      return "yes";
    };
    const verdict = await gate(ws.root, { approver }).call("edit_file", { path: "f.txt", old: "three", new: "3" });
    expectRefused(verdict, ws, "`path`", /changed/);
    expect(read(ws.root, "f.txt")).toBe(FILE + "added by the person\n");
  });

  test("a binary file is refused before approval", async () => {
    const ws = setup();
    writeFileSync(join(ws.root, "b.bin"), Buffer.from([0x61, 0x00, 0x62]));
    const { approver, requests } = recordingApprover("yes");
    expectRefused(await gate(ws.root, { approver }).call("edit_file", { path: "b.bin", old: "a", new: "c" }), ws, "`path`", /binary/);
    expect(requests).toHaveLength(0);
  });

  test("a file over the edit size limit is refused before approval", async () => {
    const ws = setup();
    writeFileSync(join(ws.root, "huge.txt"), "needle\n" + "x".repeat(3 * 1024 * 1024));
    const { approver, requests } = recordingApprover("yes");
    expectRefused(await gate(ws.root, { approver }).call("edit_file", { path: "huge.txt", old: "needle", new: "pin" }), ws, "`path`", /larger than/);
    expect(requests).toHaveLength(0);
  });

  test("a file that does not exist is refused, pointing at list_files", async () => {
    const ws = setup();
    expectRefused(await gate(ws.root).call("edit_file", { path: "nope.txt", old: "a", new: "b" }), ws, "`path`", "`nope.txt`", /list_files/);
  });
});

describe("the candidate must parse before it is written", () => {
  const cases: Array<[label: string, path: string, content: string, old: string, replacement: string, mention: RegExp]> = [
    ["TypeScript", "src/x.ts", "export const a = 1;\nexport const b = 2;\n", "= 2;", "= ;", /line 2, column \d+: Unexpected ;/],
    ["JavaScript", "lib/y.js", "function f() {\n  return 1;\n}\n", "return 1;\n}", "return 1;", /line \d+, column \d+/],
    ["JSON", "data.json", '{"a": 1, "b": 2}\n', '"b": 2', '"b": ', /JSON|Unexpected/],
  ];
  for (const [label, path, content, old, replacement, mention] of cases) {
    test(`${label}: a broken candidate is refused with the error, the file unchanged, nobody asked`, async () => {
      const ws = makeWorkspace();
      mkdirSync(join(ws.root, path, ".."), { recursive: true });
      writeFileSync(join(ws.root, path), content);
      const { approver, requests } = recordingApprover("yes");
      const verdict = await gate(ws.root, { approver }).call("edit_file", { path, old, new: replacement });
      expectRefused(verdict, ws, /unparseable/, mention, /the file is unchanged/);
      expect(read(ws.root, path)).toBe(content);
      expect(requests).toHaveLength(0);
    });
  }

  test("a candidate that parses is written", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "ok.ts"), "export const a = 1;\n");
    const verdict = await gate(ws.root, { approver: recordingApprover("yes").approver }).call("edit_file", { path: "ok.ts", old: "= 1", new: "= 2" });
    expect(verdict.decision).toBe("allowed");
    expect(read(ws.root, "ok.ts")).toBe("export const a = 2;\n");
  });

  test("other file types are checked by the config's edit_checks, on a temporary copy whose path the model never sees", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "notes.cfg"), "valid line\n");
    const editChecks = { ".cfg": { argv: ["bash", "-c", 'grep -q valid "$0" || { echo "no valid line in $0"; exit 1; }'], timeout_seconds: 5, env: [] } };
    const tools = defaultTools({}, editChecks);
    const approver = recordingApprover("yes").approver;
    const refused = await gate(ws.root, { approver, tools }).call("edit_file", { path: "notes.cfg", old: "valid", new: "broken" });
    expectRefused(refused, ws, /no valid line in notes\.cfg/);
    expect(refused.content).not.toContain("glassbox-syntax-");
    expect(read(ws.root, "notes.cfg")).toBe("valid line\n");
    const allowed = await gate(ws.root, { approver, tools }).call("edit_file", { path: "notes.cfg", old: "valid line", new: "valid line two" });
    expect(allowed.decision).toBe("allowed");
  });
});

test("a file changed while the edit waited for approval is refused and keeps the change", async () => {
  const ws = setup();
  const approver: Approver = async () => {
    writeFileSync(join(ws.root, "f.txt"), "one\ntwo\nthree\nedited by hand\n");
    return "yes";
  };
  const verdict = await gate(ws.root, { approver }).call("edit_file", { path: "f.txt", old: "three", new: "3" });
  expectRefused(verdict, ws, "`path`", /changed while the call waited for approval/);
  expect(read(ws.root, "f.txt")).toBe("one\ntwo\nthree\nedited by hand\n");
});

describe("components.loose_edits off: exact matches only", () => {
  const FILE_TS = "function f() {\n    if (a) {\n        b();\n    }\n}\n";
  const looseOld = { path: "f.ts", old: "if (a) {\n  b();\n}\n", new: "if (a) {\n  c();\n}\n" };
  const toolsWith = (loose: boolean) => defaultTools({}, {}, undefined, { ...DEFAULT_COMPONENTS, loose_edits: loose });

  test("an `old` re-indented is refused, and says to copy the text exactly", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "f.ts"), FILE_TS);
    const verdict = await gate(ws.root, { allow: ["edit_file"], tools: toolsWith(false) }).call("edit_file", looseOld);
    expectRefused(verdict, ws, "`old`", /does not occur exactly in f\.ts; read the file and copy the text exactly, whitespace and line endings included/);
    expect(read(ws.root, "f.ts")).toBe(FILE_TS);
  });

  test("the same edit with the switch on (the default) is matched loosely", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "f.ts"), FILE_TS);
    const verdict = await gate(ws.root, { allow: ["edit_file"], tools: toolsWith(true) }).call("edit_file", looseOld);
    expect(verdict.decision).toBe("allowed");
    expect(read(ws.root, "f.ts")).toBe("function f() {\n    if (a) {\n        c();\n    }\n}\n");
  });

  test("an exact `old` is still edited with the switch off", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "f.ts"), FILE_TS);
    const verdict = await gate(ws.root, { allow: ["edit_file"], tools: toolsWith(false) }).call("edit_file", { path: "f.ts", old: "        b();", new: "        c();" });
    expect(verdict.decision).toBe("allowed");
    expect(read(ws.root, "f.ts")).toContain("c();");
  });
});
