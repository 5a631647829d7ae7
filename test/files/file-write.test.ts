/**
 * Every write path keeps what it does not mean to change, compared byte for byte: the encoding
 * (a non-UTF-8 file is refused, never re-encoded), the byte-order mark, CRLF line endings and the
 * mode. Driven through the real checkpoint, as the model's calls are.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorkspace } from "../helpers/workspace.ts";
import { expectRefused, gate, recordingApprover } from "../tools/harness.ts";
import { ChangeJournal } from "../../src/files/journal.ts";
import { applyUndo } from "../../src/files/restore.ts";
import { Workspace } from "../../src/files/workspace.ts";

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const bytes = (root: string, path: string) => readFileSync(join(root, path));
const mode = (root: string, path: string) => statSync(join(root, path)).mode & 0o777;

function setUp(path: string, content: Buffer | string, fileMode?: number) {
  const ws = makeWorkspace();
  writeFileSync(join(ws.root, path), content);
  if (fileMode !== undefined) chmodSync(join(ws.root, path), fileMode);
  const g = gate(ws.root, { allow: ["write_file", "edit_file"] });
  g.checkpoint.journal = new ChangeJournal(new Workspace(ws.root).root, "20260101T000000-fidelity");
  return { ws, g };
}

describe("a file that is not UTF-8 is refused by name and left as it was", () => {
  // "café" in Latin-1: the é is the single byte 0xE9, which UTF-8 decoding would turn into U+FFFD.
  const LATIN1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x62, 0x0a]);
  const calls: Array<[tool: string, args: Record<string, unknown>]> = [
    ["edit_file", { path: "menu.txt", old: "b", new: "c" }],
    ["edit_file", { path: "menu.txt", edits: [{ old: "b", new: "c" }] }],
    ["write_file", { path: "menu.txt", content: "café\n" }],
  ];
  for (const [tool, args] of calls) {
    test(`${tool} ${JSON.stringify(args).slice(0, 60)}`, async () => {
      const { ws } = setUp("menu.txt", LATIN1);
      const { approver, requests } = recordingApprover("yes");
      const verdict = await gate(ws.root, { approver }).call(tool, args);
      expectRefused(verdict, ws, "`path`", "menu.txt", "not UTF-8", "never re-encodes");
      expect(requests).toHaveLength(0);
      expect(bytes(ws.root, "menu.txt")).toEqual(LATIN1);
    });
  }
});

describe("a UTF-8 byte-order mark stays", () => {
  const text = "name,price\ncafé,3\n";
  test("edit_file: the mark is kept and `old` matches the text after it", async () => {
    const { ws, g } = setUp("prices.csv", Buffer.concat([BOM, Buffer.from(text)]));
    const verdict = await g.call("edit_file", { path: "prices.csv", old: "name,price", new: "item,price" });
    expect(verdict.decision).toBe("allowed");
    expect(bytes(ws.root, "prices.csv")).toEqual(Buffer.concat([BOM, Buffer.from("item,price\ncafé,3\n")]));
  });

  test("write_file: replacing the whole file keeps the mark", async () => {
    const { ws, g } = setUp("prices.csv", Buffer.concat([BOM, Buffer.from(text)]));
    const verdict = await g.call("write_file", { path: "prices.csv", content: "a,b\n" });
    expect(verdict.decision).toBe("allowed");
    expect(bytes(ws.root, "prices.csv")).toEqual(Buffer.concat([BOM, Buffer.from("a,b\n")]));
  });

  test("the approval diff shows the text without the mark, as the model reads it", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "prices.csv"), Buffer.concat([BOM, Buffer.from(text)]));
    const { approver, requests } = recordingApprover("no");
    await gate(ws.root, { approver }).call("edit_file", { path: "prices.csv", old: "café,3", new: "café,4" });
    expect(requests[0]!.change).toEqual({ path: "prices.csv", before: text, after: "name,price\ncafé,4\n" });
  });
});

describe("a CRLF file stays CRLF", () => {
  const crlf = "one\r\ntwo\r\nthree\r\n";
  test("edit_file: a multi-line `new` written with LF gets CRLF", async () => {
    const { ws, g } = setUp("win.txt", crlf);
    const verdict = await g.call("edit_file", { path: "win.txt", old: "two", new: "two\nand a half" });
    expect(verdict.decision).toBe("allowed");
    expect(bytes(ws.root, "win.txt").toString("latin1")).toBe("one\r\ntwo\r\nand a half\r\nthree\r\n");
  });

  test("write_file: content written with LF over a CRLF file gets CRLF, and the diff shows it", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "win.txt"), crlf);
    const { approver, requests } = recordingApprover("yes");
    const verdict = await gate(ws.root, { approver }).call("write_file", { path: "win.txt", content: "uno\ndos\n" });
    expect(verdict.decision).toBe("allowed");
    expect(bytes(ws.root, "win.txt").toString("latin1")).toBe("uno\r\ndos\r\n");
    expect(requests[0]!.change!.after).toBe("uno\r\ndos\r\n");
  });

  test("an LF file is written as given", async () => {
    const { ws, g } = setUp("unix.txt", "a\nb\n");
    await g.call("write_file", { path: "unix.txt", content: "c\nd\n" });
    expect(bytes(ws.root, "unix.txt").toString("latin1")).toBe("c\nd\n");
  });
});

describe("the mode stays", () => {
  test("edit_file keeps 0755", async () => {
    const { ws, g } = setUp("run.sh", "#!/bin/sh\necho one\n", 0o755);
    expect((await g.call("edit_file", { path: "run.sh", old: "one", new: "two" })).decision).toBe("allowed");
    expect(bytes(ws.root, "run.sh").toString()).toBe("#!/bin/sh\necho two\n");
    expect(mode(ws.root, "run.sh")).toBe(0o755);
  });

  test("write_file keeps 0755", async () => {
    const { ws, g } = setUp("run.sh", "#!/bin/sh\necho one\n", 0o755);
    expect((await g.call("write_file", { path: "run.sh", content: "#!/bin/sh\necho three\n" })).decision).toBe("allowed");
    expect(mode(ws.root, "run.sh")).toBe(0o755);
  });

  test("write_file keeps 0600 too: the mode is copied, not guessed", async () => {
    const { ws, g } = setUp("secret.txt", "a\n", 0o600);
    await g.call("write_file", { path: "secret.txt", content: "b\n" });
    expect(mode(ws.root, "secret.txt")).toBe(0o600);
  });

  test("undo of an edit restores the bytes and the mode", async () => {
    const { ws, g } = setUp("run.sh", "#!/bin/sh\r\necho one\r\n", 0o755);
    await g.call("edit_file", { path: "run.sh", old: "one", new: "two" });
    chmodSync(join(ws.root, "run.sh"), 0o644);
    writeFileSync(join(ws.root, "run.sh"), "#!/bin/sh\r\necho two\r\n"); // same bytes as glassbox wrote, mode changed by hand
    const { entry } = applyUndo(new Workspace(ws.root), g.checkpoint.journal!.runId, { force: false });
    expect(entry!.files).toEqual([{ path: "run.sh", action: "restored" }]);
    expect(bytes(ws.root, "run.sh").toString("latin1")).toBe("#!/bin/sh\r\necho one\r\n");
    expect(mode(ws.root, "run.sh")).toBe(0o755);
  });
});

describe("several edits are all or none", () => {
  const FILE = "alpha\nbeta\ngamma\n";
  test("a failing second edit writes nothing, names the edit, and nobody is asked", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "g.txt"), FILE);
    const { approver, requests } = recordingApprover("yes");
    const verdict = await gate(ws.root, { approver }).call("edit_file", {
      path: "g.txt",
      edits: [
        { old: "alpha", new: "ALPHA" },
        { old: "delta", new: "DELTA" },
      ],
    });
    expectRefused(verdict, ws, "`edits[1].old`", "does not occur in g.txt", "no edit was made");
    expect(requests).toHaveLength(0);
    expect(bytes(ws.root, "g.txt").toString()).toBe(FILE);
  });

  test("edits that all apply are written once, in order, and one approval shows them all", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "g.txt"), FILE);
    const { approver, requests } = recordingApprover("yes");
    const verdict = await gate(ws.root, { approver }).call("edit_file", {
      path: "g.txt",
      edits: [
        { old: "alpha", new: "ALPHA" },
        { old: "a", new: "A", replace_all: true },
      ],
    });
    expect(verdict.decision).toBe("allowed");
    expect(bytes(ws.root, "g.txt").toString()).toBe("ALPHA\nbetA\ngAmmA\n");
    expect(requests).toHaveLength(1);
    expect(requests[0]!.change).toEqual({ path: "g.txt", before: FILE, after: "ALPHA\nbetA\ngAmmA\n" });
    expect(verdict.content).toStartWith("Edited g.txt (2 edits): lines ");
  });

  test("old/new and edits together are refused, naming edits", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "g.txt"), FILE);
    const verdict = await gate(ws.root, { allow: ["edit_file"] }).call("edit_file", { path: "g.txt", old: "a", new: "b", edits: [{ old: "beta", new: "x" }] });
    expectRefused(verdict, ws, "`edits`", "not both");
  });

  test("neither old nor edits is refused, naming old", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "g.txt"), FILE);
    const verdict = await gate(ws.root, { allow: ["edit_file"] }).call("edit_file", { path: "g.txt", new: "b" });
    expectRefused(verdict, ws, "`old`");
  });
});

describe("loose edits through the tool: the result says how, the file keeps its style", () => {
  test("an LF `old` on a CRLF file, the block re-typed with two spaces where the file has four", async () => {
    const file = "function f() {\r\n    if (a) {\r\n        b();\r\n    }\r\n}\r\n";
    const { ws, g } = setUp("f.ts", file);
    const verdict = await g.call("edit_file", { path: "f.ts", old: "if (a) {\n  b();\n}\n", new: "if (a) {\n  b();\n  c();\n}\n" });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toStartWith("Edited f.ts (`old` matched loosely: line endings differ; indentation of 2 spaces read as 4, shifted by 4 spaces): lines 2-5");
    expect(bytes(ws.root, "f.ts").toString("latin1")).toBe("function f() {\r\n    if (a) {\r\n        b();\r\n        c();\r\n    }\r\n}\r\n");
  });

  test("an ambiguous loose match is refused before approval, naming the places", async () => {
    const file = "  x();\n  y();\n    x();\n    y();\n";
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "f.js"), file);
    const { approver, requests } = recordingApprover("yes");
    const verdict = await gate(ws.root, { approver }).call("edit_file", { path: "f.js", old: "x();\ny();", new: "z();" });
    expectRefused(verdict, ws, "`old`", "fits 2 places (lines 1, 3)");
    expect(requests).toHaveLength(0);
    expect(bytes(ws.root, "f.js").toString()).toBe(file);
  });
});
