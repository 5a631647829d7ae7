import { expect, test } from "bun:test";
import { escapeTags, sanitize, safeTagged } from "../../src/tui/sanitize.ts";

const ESC = "\u001b";

test.each([
  ["a screen clear", `${ESC}[2J${ESC}[H`, "^[[2J^[[H"],
  ["a cursor move", `ok${ESC}[10;5Hhidden`, "ok^[[10;5Hhidden"],
  ["a title write (OSC, BEL-terminated)", `${ESC}]0;pwned\u0007`, "^[]0;pwned^G"],
  ["a clipboard write (OSC 52)", `${ESC}]52;c;ZXZpbA==${ESC}\\`, "^[]52;c;ZXZpbA==^[\\"],
  ["a C1 CSI", "\u009b31m", "<U+009B>31m"],
  ["a bidi override", "abc\u202Etxt.exe", "abc<U+202E>txt.exe"],
  ["an isolate", "\u2067x\u2069", "<U+2067>x<U+2069>"],
  ["a left-to-right mark", "word\u200E", "word<U+200E>"],
  ["DEL and NUL", "a\u007fb\u0000c", "a^?b^@c"],
  ["a carriage return that would overwrite the line", "safe\rEVIL", "safe^MEVIL"],
])("%s is shown escaped, never sent", (_name, input, shown) => {
  const out = sanitize(input);
  expect(out).toBe(shown);
  expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
});

test("newlines stay, tabs become spaces, ordinary text and emoji are untouched", () => {
  expect(sanitize("a\tb\nc ✓ 日本 🙂")).toBe("a  b\nc ✓ 日本 🙂");
});

test("blessed markup in untrusted text cannot open a tag", () => {
  expect(escapeTags("{bold}x{/bold}")).toBe("{open}bold{close}x{open}/bold{close}");
  expect(safeTagged(`{red-fg}${ESC}[2J`)).toBe("{open}red-fg{close}^[[2J");
});
