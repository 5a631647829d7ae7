// The guarded edits' syntax check in every language the map parses: an edit that leaves a syntax
// error the file did not have is refused, naming the line, the file unchanged.
import { beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseProblem } from "../../src/map/syntax.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { gate } from "../tools/harness.ts";
import { CASES } from "./fixtures.ts";

let root: string;
beforeAll(() => {
  root = tempFolder("map-syntax");
  for (const one of CASES) {
    mkdirSync(dirname(join(root, one.path)), { recursive: true });
    writeFileSync(join(root, one.path), one.text);
  }
});

for (const one of CASES) {
  test(`${one.language}: an edit that breaks the file is refused with its line, the file unchanged`, async () => {
    const verdict = await gate(root, { allow: ["edit_file"] }).call("edit_file", { path: one.path, old: one.text, new: one.broken.text });
    expect(verdict.decision).toBe("refused");
    // TypeScript and JavaScript keep Bun's own transpiler (line and column); the others name their language.
    const bun = ["TypeScript", "TSX", "JavaScript"].includes(one.language);
    expect(verdict.content).toContain(`would leave ${one.path} unparseable (line ${one.broken.line}${bun ? "," : `: ${one.language}`}`);
    expect(readFileSync(join(root, one.path), "utf8")).toBe(one.text);
  });
}

test("the parser's own finding names the line and what did not parse", async () => {
  expect(await parseProblem("a.py", "def bad(:\n    return 2\n")).toBe("line 1: Python expected `)` here");
  expect(await parseProblem("a.go", "package a\n\nfunc f() {\n\tx := g(\n}\n")).toMatch(/^line \d: Go /);
  expect(await parseProblem("a.txt", "((((")).toBeNull();
});

test("a file that already had a syntax error may still be edited elsewhere", async () => {
  writeFileSync(join(root, "old.py"), "def broken(:\n    pass\n\nx = 1\n");
  const verdict = await gate(root, { allow: ["edit_file"] }).call("edit_file", { path: "old.py", old: "x = 1", new: "x = 2" });
  expect(verdict.decision).toBe("allowed");
  expect(readFileSync(join(root, "old.py"), "utf8")).toContain("x = 2");
});
