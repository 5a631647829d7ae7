import { expect, test } from "bun:test";
import { TranscriptBuffer, wrap } from "../../src/tui/transcript-buffer.ts";

const texts = (rows: Array<{ text: string }>) => rows.map((row) => row.text);

test("wrap breaks at spaces, hard-breaks long words, and counts wide characters double", () => {
  expect(texts(wrap("the quick brown fox", 10, "assistant"))).toEqual(["the quick", "brown fox"]);
  expect(texts(wrap("abcdefghijkl", 5, "assistant"))).toEqual(["abcde", "fghij", "kl"]);
  expect(texts(wrap("日本語日本語", 4, "assistant"))).toEqual(["日本", "語日", "本語"]);
  for (const row of wrap("word ".repeat(50), 13, "assistant")) expect(Bun.stringWidth(row.text)).toBeLessThanOrEqual(13);
});

test("streamed tokens extend the line; wrapping matches wrapping the whole text", () => {
  const buffer = new TranscriptBuffer(20);
  const words = "streaming tokens arrive one at a time and must wrap like the whole text".split(" ");
  for (const word of words) buffer.append(word + " ", "assistant");
  expect(texts(buffer.visible(100))).toEqual(texts(wrap(words.join(" ") + " ", 20, "assistant")));
});

test("a new voice or a newline starts a new row; untrusted text arrives sanitized", () => {
  const buffer = new TranscriptBuffer(40);
  buffer.append("hello", "assistant");
  buffer.append("thinking…", "thinking");
  buffer.append("a\nb\u001b[2J", "result");
  expect(buffer.visible(10)).toEqual([
    { text: "hello", voice: "assistant" },
    { text: "thinking…", voice: "thinking" },
    { text: "a", voice: "result" },
    { text: "b^[[2J", voice: "result" },
  ]);
});

test("follow mode sticks to the bottom until the user scrolls up, and resumes at the bottom", () => {
  const buffer = new TranscriptBuffer(40);
  for (let i = 0; i < 100; i++) buffer.line(`line ${i}`, "assistant");
  expect(texts(buffer.visible(5))).toEqual(["line 95", "line 96", "line 97", "line 98", "line 99"]);
  buffer.scroll(-10, 5);
  expect(buffer.follow).toBe(false);
  buffer.line("line 100", "assistant");
  expect(texts(buffer.visible(5))[0]).toBe("line 85");
  buffer.scroll(+100, 5);
  expect(buffer.follow).toBe(true);
  expect(texts(buffer.visible(5)).at(-1)).toBe("line 100");
  buffer.scrollTo("top", 5);
  expect(texts(buffer.visible(5))[0]).toBe("line 0");
});

test("resize re-wraps every line to the new width", () => {
  const buffer = new TranscriptBuffer(80);
  buffer.line("one two three four five six", "assistant");
  expect(buffer.length).toBe(1);
  buffer.resize(10);
  expect(texts(buffer.visible(10))).toEqual(texts(wrap("one two three four five six", 10, "assistant")));
});

test("the visible window and appending cost the same at 20,000 lines (only a slice is returned)", () => {
  const buffer = new TranscriptBuffer(80, 50_000);
  for (let i = 0; i < 20_000; i++) buffer.line(`row ${i}`, "result");
  expect(buffer.visible(30).length).toBe(30);
  expect(buffer.length).toBe(20_000);
});

test("rows past the cap are dropped from the top and counted", () => {
  const buffer = new TranscriptBuffer(80, 100);
  for (let i = 0; i < 150; i++) buffer.line(`row ${i}`, "result");
  expect(buffer.length).toBe(100);
  expect(buffer.dropped).toBe(50);
  buffer.scrollTo("top", 10);
  expect(buffer.visible(10)[0]!.text).toBe("row 50");
});
