import { expect, test } from "bun:test";
import { renderMarkdown } from "../../../src/tui/markdown/render.ts";
import { taggedLines } from "./tagged.ts";

/** Markdown as a model writes it → the lines drawn, as blessed tags (tagged.ts): never a raw marker. */
const CASES: Array<[name: string, markdown: string, lines: string[]]> = [
  ["heading 1 bold and underlined, others bold", "# Title\n## Sub *part*", ["{bold}{underline}Title{/}", "{bold}Sub {/}{bold}{underline}part{/}"]],
  ["bold, italics (underlined), inline code", "a **b** *c* _d_ `e`", ["a {bold}b{/} {underline}c{/} {underline}d{/} {yellow-fg}e{/}"]],
  ["bold code keeps both", "**`x`**", ["{bold}{yellow-fg}x{/}"]],
  ["line breaks the model wrote are kept; a blank line stays one", "one\ntwo\n\n\n\nthree", ["one", "two", "", "three"]],
  ["bullets and numbers, nested lists indented", "- a\n- b\n  1. c\n  2. d", ["• a", "• b", "  1. c", "  2. d"]],
  ["an ordered list keeps its start; task boxes", "3. x\n4. y\n\n- [x] done\n- [ ] todo", ["3. x", "4. y", "", "• [x] done", "• [ ] todo"]],
  ["fenced code highlighted, set off, without its fences", "```ts\nconst x = 'a'; // hi\n```", ["  {magenta-fg}const{/} x = {green-fg}'a'{/}; {gray-fg}// hi{/}"]],
  ["a language alias (py) and an unknown one (plain)", "```py\ndef f(): pass\n```\n```brainfuck\n+[-]\n```", ["  {magenta-fg}def{/} {blue-fg}f{/}(): {magenta-fg}pass{/}", "  +[-]"]],
  ["a diff: added and removed lines", "```diff\n-old\n+new\n```", ["  {red-fg}-old{/}", "  {green-fg}+new{/}"]],
  ["an unclosed fence is code to the end", "```json\n{\"a\": 1", ["  {open}{cyan-fg}\"a\"{/}: {yellow-fg}1{/}"]],
  ["links show their address, muted", "see [the docs](https://x.dev) or <https://y.dev>", ["see {underline}{blue-fg}the docs{/}{gray-fg} (https://x.dev){/} or {underline}{blue-fg}https://y.dev{/}"]],
  ["quotes get a bar", "> careful\n> now", ["{gray-fg}│ {/}careful", "{gray-fg}│ {/}now"]],
  ["a rule", "---", ["{gray-fg}────────────────────────{/}"]],
  ["setext headings: text underlined with = or -", "Title\n===\n\nSub *part*\n---\n\na - b\n= c", ["{bold}{underline}Title{/}", "", "{bold}Sub {/}{bold}{underline}part{/}", "", "a - b", "= c"]],
  ["tables align their columns", "| a | bb |\n|---|---|\n| ccc | d |", ["a  {gray-fg} │ {/}bb", "{gray-fg}────┼───{/}", "ccc{gray-fg} │ {/}d "]],
  ["escaped markers show as the characters", "\\*not em\\* and \\`tick\\`", ["*not em* and `tick`"]],
  ["braces and blessed tags in the text are text", "{bold}x{/bold} **{red-fg}**", ["{open}bold{close}x{open}/bold{close} {bold}{open}red-fg{close}{/}"]],
  ["html is shown as written", "<b>hi</b>", ["<b>hi</b>"]],
];

for (const [name, markdown, lines] of CASES) {
  test(`markdown: ${name}`, () => {
    expect(taggedLines(renderMarkdown(markdown))).toEqual(lines);
  });
}

// A hostile reply nested hundreds deep overflowed marked's recursive lexer (200,000 `>`) or took a
// minute (2,000 list levels): past 32 levels the text is drawn as written, whole, in one block.
test.each([
  ["quotes", ">".repeat(200_000)],
  ["list levels", Array.from({ length: 2000 }, (_, level) => `${" ".repeat(level * 2)}- item ${level}`).join("\n")],
  ["emphasis markers", `${"*".repeat(100_000)}a`],
])("a reply nested too deep (%s) is drawn as written, without throwing", (_, text) => {
  // As a code block is drawn: every line indented by two.
  const lines = renderMarkdown(text);
  expect(lines.map((line) => line.text).join("\n")).toBe(text.replace(/^/gm, "  "));
});

test("nesting within reason is still Markdown", () => {
  const text = `${"> ".repeat(5)}deep quote\n\n${Array.from({ length: 6 }, (_, level) => `${" ".repeat(level * 2)}- level ${level}`).join("\n")}`;
  expect(renderMarkdown(text).map((line) => line.text).join("\n")).not.toContain("> >");
});
