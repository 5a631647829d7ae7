import { expect, test } from "bun:test";
import { renderMarkdown } from "../../../src/tui/markdown/render.ts";
import { closeMarkers, MarkdownStream } from "../../../src/tui/markdown/stream.ts";
import { taggedLines } from "./tagged.ts";

const REPLY = [
  "",
  "## Plan",
  "",
  "First **read** the `config`, then:",
  "",
  "1. edit *one* file",
  "2. run the tests",
  "",
  "```ts",
  "const x: number = 1; /* a",
  "long comment */",
  "function f() {",
  '  return "s";',
  "}",
  "```",
  "After the code, a [link](https://example.com).",
  "",
  "- a",
  "- b",
  "",
  "~~~",
  "plain",
  "~~~",
  "",
  "> Done.",
].join("\n");

/** Streams `text` in pieces of `size`, a frame after each: what was committed, and each frame's growing lines. */
function stream(text: string, size: number) {
  const markdown = new MarkdownStream();
  const committed: string[] = [];
  const frames: string[][] = [];
  for (let at = 0; at < text.length; at += size) {
    markdown.append(text.slice(at, at + size));
    const { commit, provisional } = markdown.flush();
    committed.push(...taggedLines(commit));
    frames.push([...committed, ...taggedLines(provisional)]);
  }
  committed.push(...taggedLines(markdown.end()));
  return { committed, frames };
}

test("streamed in pieces of any size, the committed lines are the whole reply rendered at once", () => {
  const whole = taggedLines(renderMarkdown(REPLY.trimStart()));
  for (const size of [1, 2, 3, 5, 8, 13, 64, REPLY.length]) expect(stream(REPLY, size).committed).toEqual(whole);
});

test("no frame of a streaming reply shows a raw marker, whatever piece it stopped at", () => {
  for (const size of [1, 3, 7]) {
    for (const frame of stream(REPLY, size).frames) {
      const prose = frame.filter((line) => !line.startsWith("  ")); // code lines are the code as written
      for (const line of prose) expect(line).not.toMatch(/\*|`|~~~|^#|\]\(/);
    }
  }
});

test("an unclosed fence mid-stream draws its code highlighted, without the fence", () => {
  const markdown = new MarkdownStream();
  markdown.append("Here:\n```python\ndef main():\n    print('hi')\n    ret");
  const { commit, provisional } = markdown.flush();
  expect([...taggedLines(commit), ...taggedLines(provisional)]).toEqual(["Here:", "  {magenta-fg}def{/} {blue-fg}main{/}():", "      {blue-fg}print{/}({green-fg}'hi'{/})", "      ret"]);
});

test("a line that may yet become a fence is held back, not drawn as text", () => {
  for (const partial of ["`", "``", "```", "```ty", "~~"]) {
    const markdown = new MarkdownStream();
    markdown.append(`Text.\n${partial}`);
    const { commit, provisional } = markdown.flush();
    expect([...commit, ...provisional].map((line) => line.text)).toEqual(["Text."]);
  }
});

test("an open fence's lines become final as they settle; an open comment keeps them growing", () => {
  const markdown = new MarkdownStream();
  markdown.append("```js\nlet a = 1;\nlet b = 2;\n");
  expect(markdown.flush()).toMatchObject({ commit: [{ text: "  let a = 1;" }, { text: "  let b = 2;" }], provisional: [] });
  markdown.append("/* still\nopen\n");
  const open = markdown.flush();
  expect(open.commit).toEqual([]);
  expect(open.provisional.map((line) => line.text)).toEqual(["  /* still", "  open"]);
  markdown.append("*/ let c;\n");
  expect(markdown.flush().commit.map((line) => line.text)).toEqual(["  /* still", "  open", "  */ let c;"]);
});

test("a long reply keeps the growing part to its last block: a frame re-renders a line, not the reply", () => {
  const markdown = new MarkdownStream();
  markdown.append("```rust\n");
  for (let i = 0; i < 2000; i++) {
    markdown.append(`let v${i} = ${i}; `);
    expect(markdown.flush().provisional.length).toBeLessThanOrEqual(1);
    markdown.append("\n");
  }
  markdown.append("```\n");
  for (let i = 0; i < 200; i++) {
    markdown.append(`Paragraph ${i} says **something**.\n\n`);
    expect(markdown.flush().provisional.length).toBeLessThanOrEqual(2);
  }
});

test("untrusted control characters in the reply are shown escaped", () => {
  const markdown = new MarkdownStream();
  markdown.append("red \x1b[31mtext\x1b[0m\n```\n\x07bell\n```");
  expect(markdown.end().map((line) => line.text)).toEqual(["red ^[[31mtext^[[0m", "  ^Gbell"]);
});

const CLOSERS: Array<[partial: string, shown: string]> = [
  ["some **bol", "some **bol**"],
  ["some **", "some"],
  ["a `co", "a `co`"],
  ["a `code` and *it", "a `code` and *it*"],
  ["**bold *both", "**bold *both***"],
  ["2 * 3 = 6", "2 * 3 = 6"],
  ["* a bullet", "* a bullet"],
  ["**done**", "**done**"],
  ["see [the do", "see the do"],
  ["see [the docs](https://exa", "see the docs"],
  ["see [the docs](https://x.dev) now", "see [the docs](https://x.dev) now"],
];

for (const [partial, shown] of CLOSERS) {
  test(`an unfinished line is drawn closed: ${JSON.stringify(partial)}`, () => {
    expect(closeMarkers(partial)).toBe(shown);
  });
}

test("a reply with no blank line (one paragraph, one list) still re-renders only its last lines a frame", () => {
  for (const line of [(i: number) => `w${i} w${i + 1} w${i + 2}`, (i: number) => `${i + 1}. item **${i}**`]) {
    const markdown = new MarkdownStream();
    const committed: string[] = [];
    let text = "";
    for (let i = 0; i < 500; i++) {
      text += line(i) + "\n";
      markdown.append(line(i) + "\n");
      const { commit, provisional } = markdown.flush();
      committed.push(...taggedLines(commit));
      expect(provisional.length).toBeLessThanOrEqual(12);
    }
    committed.push(...taggedLines(markdown.end()));
    // Cut in pieces, drawn as the whole.
    expect(committed).toEqual(taggedLines(renderMarkdown(text)));
  }
});
