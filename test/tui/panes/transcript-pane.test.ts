import { expect, test } from "bun:test";
import { blessed, type Widgets } from "../../../src/tui/blessed.ts";
import { fakeTerminal } from "../../helpers/fake-terminal.ts";
import { escapeTags } from "../../../src/tui/sanitize.ts";
import { VOICE_STYLE } from "../../../src/tui/theme.ts";
import type { Voice } from "../../../src/tui/transcript-buffer.ts";
import { layout } from "../../../src/tui/layout.ts";
import { TranscriptPane, worthScrolling } from "../../../src/tui/panes/transcript-pane.ts";
import { tagged } from "../markdown/tagged.ts";

const line = (n: number) => `line ${n} of the transcript, long enough to be worth not writing twice`;

test("a transcript that moved down by k rows makes the terminal delete k lines and writes only the k new ones", () => {
  const { screen, frame } = fakeTerminal();
  const pane = new TranscriptPane(screen, layout(160, 45).transcript);
  for (let n = 1; n <= 100; n++) pane.line(line(n), "assistant");
  const first = frame(() => pane.draw());
  expect(first).toContain(line(100));
  for (let n = 101; n <= 105; n++) pane.line(line(n), "assistant");
  const second = frame(() => pane.draw());
  // A scroll region over the pane's inner rows (2..40 counted from 1), then five lines deleted at its top.
  expect(second).toContain("\x1b[2;40r\x1b[2;1H\x1b[5M");
  for (let n = 101; n <= 105; n++) expect(second).toContain(line(n));
  expect(second).not.toContain(line(100)); // already on screen: moved by the terminal, not written
  expect(second.length).toBeLessThan(first.length / 3);
});

test("scrolling back up inserts lines; a jump of a whole pane or more, a move or a resize writes the rows instead", () => {
  const { screen, frame } = fakeTerminal();
  const rect = layout(160, 45).transcript;
  const pane = new TranscriptPane(screen, rect);
  for (let n = 1; n <= 100; n++) pane.line(line(n), "assistant");
  frame(() => pane.draw());
  pane.scroll(-3);
  expect(frame(() => pane.draw())).toContain("\x1b[2;1H\x1b[3L");
  pane.scroll(-40);
  const jumped = frame(() => pane.draw());
  expect(jumped).not.toMatch(/\x1b\[\d+[LM]/);
  pane.place({ ...rect, width: rect.width - 10 });
  pane.scroll("bottom");
  expect(frame(() => pane.draw())).not.toMatch(/\x1b\[\d+[LM]/);
});

test("the rows written straight into the screen's cells are the cells blessed makes of the same rows as tagged content", () => {
  const rows: Array<[string, Voice]> = [
    ["plain ascii, the common case", "assistant"],
    ["幅広い文字 ok: wide characters take two cells", "user"],
    ["an emoji 😀 and an astral 𝒜 letter", "tool"],
    ["combining: cafe\u0301 and n\u0303o", "thinking"],
    ["{bold}not markup{/bold} and a lone { brace", "notice"],
    ["宽".repeat(60), "result"], // wider than the pane: cut where the pane ends
    ["", "assistant"],
  ];
  const rect = layout(160, 45).transcript;
  const ours = fakeTerminal();
  const pane = new TranscriptPane(ours.screen, rect);
  for (const [text, voice] of rows) pane.line(text, voice);
  ours.frame(() => pane.draw());
  const theirs = fakeTerminal();
  const box = blessed.box({ parent: theirs.screen, ...rect, border: "line", label: " transcript ", tags: true, wrap: false, style: { border: { fg: "gray" }, focus: { border: { fg: "cyan" } } } });
  // The same rows through blessed's own content path (as the pane drew them before).
  const shown = pane.buffer.visible(rect.height - 2);
  box.setContent(shown.map((row) => VOICE_STYLE[row.voice][0] + escapeTags(row.text) + VOICE_STYLE[row.voice][1]).join("\n"));
  theirs.frame(() => {});
  const cells = (screen: Widgets.Screen) => (screen as unknown as { lines: Array<Array<[number, string]>> }).lines.slice(rect.top + 1, rect.top + rect.height - 1).map((line) => line.slice(rect.left + 1, rect.left + rect.width - 1));
  expect(shown.length).toBeGreaterThanOrEqual(rows.length);
  expect(cells(ours.screen)).toEqual(cells(theirs.screen));
});

test("beside the side column the terminal scrolls the pane by up to half its rows; past that the rows are written", () => {
  const { screen, frame } = fakeTerminal();
  const rect = layout(160, 45).transcript; // 39 rows inside, the side column to its right
  const pane = new TranscriptPane(screen, rect);
  for (let n = 1; n <= 100; n++) pane.line(line(n), "assistant");
  frame(() => pane.draw());
  for (let n = 101; n <= 119; n++) pane.line(line(n), "assistant");
  expect(frame(() => pane.draw())).toContain("\x1b[19M"); // 19 of 39: scrolled
  for (let n = 120; n <= 139; n++) pane.line(line(n), "assistant");
  const rewritten = frame(() => pane.draw()); // 20 of 39: written
  expect(rewritten).not.toMatch(/\x1b\[\d+M/);
  // Written in place: only the cells that differ from the row that was there (here, digits).
  const shown = (screen as unknown as { lines: Array<Array<[number, string]>> }).lines.map((row) => row.map((cell) => cell[1]).join(""));
  expect(shown[rect.top + 39]).toContain(line(139));
  expect(shown[rect.top + 1]).toContain(line(101));
  expect([worthScrolling(30, 39, true), worthScrolling(39, 39, true), worthScrolling(20, 39, false), worthScrolling(19, 39, false)]).toEqual([true, false, false, true]);
});

test("the model's Markdown is written into the cells blessed makes of the same rows as tagged content, wide characters included", () => {
  const reply = "# 見出し **bold**\n\nSome `code` and *em* 😀 text that is long enough to wrap inside the pane: " + "word ".repeat(40) + "\n\n```ts\nconst s = '宽字'; // note\n```\n- item **one**\n";
  const rect = layout(160, 45).transcript;
  const ours = fakeTerminal();
  const pane = new TranscriptPane(ours.screen, rect);
  // Streamed in pieces, a frame now and then, as a reply arrives.
  for (let at = 0; at < reply.length; at += 7) {
    pane.append(reply.slice(at, at + 7), "assistant");
    if (at % 35 === 0) ours.frame(() => pane.draw());
  }
  pane.newline();
  ours.frame(() => pane.draw());
  const theirs = fakeTerminal();
  const box = blessed.box({ parent: theirs.screen, ...rect, border: "line", label: " transcript ", tags: true, wrap: false, style: { border: { fg: "gray" }, focus: { border: { fg: "cyan" } } } });
  const shown = pane.buffer.visible(rect.height - 2);
  box.setContent(shown.map(tagged).join("\n"));
  theirs.frame(() => {});
  const cells = (screen: Widgets.Screen) => (screen as unknown as { lines: Array<Array<[number, string]>> }).lines.slice(rect.top + 1, rect.top + rect.height - 1).map((line) => line.slice(rect.left + 1, rect.left + rect.width - 1));
  expect(shown.map((row) => row.text)).toContain("  const s = '宽字'; // note");
  expect(shown.some((row) => row.text.includes("**") || row.text.includes("`"))).toBe(false);
  expect(cells(ours.screen)).toEqual(cells(theirs.screen));
});
