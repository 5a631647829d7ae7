import { expect, test } from "bun:test";
import { diffLines } from "../../src/tui/diff-lines.ts";

test("an edit shows the removed and added lines with context", () => {
  const lines = diffLines({ path: "src/version.ts", before: "a\nb\nc\n", after: "a\nB\nc\n" });
  expect(lines.filter((line) => line.kind === "remove").map((line) => line.text)).toEqual(["-b"]);
  expect(lines.filter((line) => line.kind === "add").map((line) => line.text)).toEqual(["+B"]);
  expect(lines.some((line) => line.kind === "hunk")).toBe(true);
  expect(lines.filter((line) => line.kind === "context").map((line) => line.text.trim())).toEqual(["a", "c"]);
});

test("a new file is all additions", () => {
  const lines = diffLines({ path: "new.txt", before: null, after: "one\ntwo\n" });
  expect(lines.filter((line) => line.kind === "add").map((line) => line.text)).toEqual(["+one", "+two"]);
  expect(lines.some((line) => line.kind === "remove")).toBe(false);
});

test("a huge change is cut with a count", () => {
  const after = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join("\n");
  const lines = diffLines({ path: "big.txt", before: null, after }, 100);
  expect(lines.length).toBe(101);
  expect(lines.at(-1)!.text).toMatch(/more diff lines not shown/);
});

test("a move says what is renamed to what, and that its content moves unchanged: no empty diff", () => {
  const lines = diffLines({ path: "docs/README.md", from: "README.md", before: null, after: "# toy\n" });
  expect(lines).toEqual([
    { kind: "move", text: "README.md → docs/README.md" },
    { kind: "header", text: "(the content moves unchanged)" },
  ]);
});

test("a move that overwrites says so, and shows the overwritten file against the moved one", () => {
  const lines = diffLines({ path: "docs/README.md", from: "README.md", before: "old\n", after: "new\n" });
  expect(lines[0]).toEqual({ kind: "move", text: "README.md → docs/README.md (overwrites docs/README.md)" });
  expect(lines.filter((line) => line.kind === "remove" || line.kind === "add").map((line) => line.text)).toEqual(["-old", "+new"]);
});
