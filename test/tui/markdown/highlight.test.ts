import { expect, test } from "bun:test";
import { highlight, knownLanguage } from "../../../src/tui/markdown/highlight.ts";
import { taggedLines } from "./tagged.ts";

test("fence names and their aliases find a grammar; embedded-only and unknown names do not", () => {
  expect(["ts", "typescript", "TSX", "python", "sh", "Dockerfile", "yml", "rust", "go", "diff"].map(knownLanguage)).toEqual(["ts", "ts", "ts", "py", "bash", "docker", "yaml", "rs", "go", "diff"]);
  expect(["todo", "jsdoc", "regex", "brainfog", "", "constructor", "__proto__"].map(knownLanguage)).toEqual([null, null, null, null, null, null, null]);
});

test("code is coloured by token, a line per line, and nothing of the probe is drawn", () => {
  const { lines } = highlight('const n = 42; // answer\nreturn "x";', "ts");
  expect(taggedLines(lines)).toEqual(["{magenta-fg}const{/} n = {yellow-fg}42{/}; {gray-fg}// answer{/}", '{magenta-fg}return{/} {green-fg}"x"{/};']);
});

// Whether a later line can be highlighted on its own: false while a construct that spans lines is open.
const SETTLED: Array<[string, string, string, boolean]> = [
  ["a whole statement", "ts", "let a = 1;", true],
  ["a line comment at the end", "ts", "let a = 1; // done", true],
  ["an open block comment", "ts", "let a = 1; /* not yet", false],
  ["a closed block comment", "ts", "/* one\ntwo */ let b;", true],
  ["an open template string", "js", "const s = `line one", false],
  ["an unclosed ordinary string (it ends with its line)", "js", 'const s = "abc', true],
  ["an open Python docstring", "python", 'def f():\n    """Says', false],
  ["a closed Python docstring", "python", 'def f():\n    """Says."""', true],
  ["an open Go raw string", "go", "s := `raw", false],
];

for (const [name, language, code, settled] of SETTLED) {
  test(`settled: ${name}`, () => {
    const result = highlight(code, knownLanguage(language));
    expect(result.settled).toBe(settled);
    expect(result.lines.map((line) => line.text)).toEqual(code.split("\n"));
  });
}

test("without a language the code is one plain line per line, always settled", () => {
  expect(highlight("a /* b\nc", null)).toEqual({ lines: [{ text: "a /* b", styles: "\0".repeat(6) }, { text: "c", styles: "\0" }], settled: true });
});
