import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const TUI = join(import.meta.dir, "..", "..", "src", "tui");

/** A character that may be an emoji: terminals disagree on its width (⚙ is one cell to wcwidth, two to some terminals). */
const MAYBE_EMOJI = /\p{Extended_Pictographic}/u;

/** The code of a source file without its comments, line by line (comments may name the glyphs they avoid). */
function codeLines(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\/?\*)/.test(line))
    .map((line) => line.replace(/\s\/\/ .*$/, ""));
}

test("the TUI draws no glyph that may be an emoji: every terminal gives its glyphs one cell, so right borders stay put", () => {
  const found = readdirSync(TUI, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .flatMap((name) => codeLines(join(TUI, name)).filter((line) => MAYBE_EMOJI.test(line)).map((line) => `${name}: ${line.trim()}`));
  expect(found).toEqual([]);
});
