import { expect, test } from "bun:test";
import { TranscriptBuffer, wrap, type Joint } from "../../src/tui/transcript-buffer.ts";

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

test("a streamed line re-wraps on resize as the whole text would, however it was broken", () => {
  const text = "streaming tokens arrive one at a time, supercalifragilisticexpialidocious words included, 日本語の文も";
  const buffer = new TranscriptBuffer(12);
  for (const piece of text.match(/.{1,3}/gsu)!) buffer.append(piece, "assistant");
  expect(texts(buffer.visible(100))).toEqual(texts(wrap(text, 12, "assistant")));
  for (const width of [30, 7, 80]) {
    buffer.resize(width);
    expect(texts(buffer.visible(100))).toEqual(texts(wrap(text, width, "assistant")));
  }
});

test("wrap reports what it took out between rows, so the rows join back into the line", () => {
  for (const [text, width] of [["the quick brown fox  jumps", 10], ["abcdefghijkl mnop", 5], ["日本語 日本語", 4], [" lead and trail ", 6]] as const) {
    const joints: Joint[] = [];
    const rows = texts(wrap(text, width, "assistant", joints));
    expect(joints.length).toBe(rows.length - 1);
    expect(rows.reduce((line, row, i) => (i === 0 ? row : line + joints[i - 1] + row), "")).toBe(text);
  }
});

test("rows packed into blocks read back, re-wrap and drop exactly as the whole lines would wrap", () => {
  const voices = ["user", "assistant", "thinking", "tool", "result", "notice"] as const;
  const lines = Array.from({ length: 900 }, (_, i) => ({
    text: `line ${i}: ` + "word ".repeat(i % 7) + "x".repeat(i % 13) + (i % 5 === 0 ? " 日本語" : ""),
    voice: voices[i % voices.length]!,
  }));
  const expected = (width: number) => lines.flatMap((line) => wrap(line.text, width, line.voice));
  const all = (buffer: TranscriptBuffer) => {
    buffer.scrollTo("top", buffer.length);
    return buffer.visible(buffer.length);
  };
  const fill = (buffer: TranscriptBuffer) => {
    for (const [i, line] of lines.entries()) {
      // Every other line streams in pieces, so the last row is extended while blocks seal behind it.
      if (i % 2) buffer.line(line.text, line.voice);
      else {
        for (const piece of line.text.match(/.{1,3}/gsu)!) buffer.append(piece, line.voice);
        buffer.newline();
      }
    }
  };
  const buffer = new TranscriptBuffer(10);
  fill(buffer);
  expect(buffer.length).toBeGreaterThan(1500); // several blocks of 512 rows
  expect(all(buffer)).toEqual(expected(10));
  buffer.resize(17);
  expect(all(buffer)).toEqual(expected(17));

  const capped = new TranscriptBuffer(10, 1000);
  fill(capped);
  const rows = expected(10);
  expect(capped.length).toBe(1000);
  expect(capped.dropped).toBe(rows.length - 1000);
  expect(all(capped)).toEqual(rows.slice(-1000));
});

test("a million streamed tokens keep about one copy of the text in rows, not an object a row or a token", () => {
  const { heapStats } = require("bun:jsc") as typeof import("bun:jsc");
  Bun.gc(true);
  const before = heapStats().heapSize;
  const buffer = new TranscriptBuffer(97, 50_000);
  const words = ["the", "cat", "sat", "on", "a", "mat", "and", "then"];
  for (let i = 0; i < 1_000_000; i++) buffer.append(words[i % 8] + (i % 24 === 23 ? "\n" : " "), "assistant");
  Bun.gc(true);
  const grown = heapStats().heapSize - before;
  expect(buffer.length).toBe(41_667); // (also keeps the buffer alive until measured)
  // ~4.0 MB of text in ~42,000 rows. A string and an object a row took 7.4 MB; appended strings
  // kept as pieces took about 75 MB.
  expect(grown).toBeLessThan(5.5e6);
}, 60_000); // about 1 s alone; a loaded 2-core machine (the mutation check runs suites in parallel) can take many times that

test("a growing Markdown block's rows are replaced each time, final ones kept; styles stay on their characters through wrap and resize", () => {
  const styled = (text: string, code: number) => ({ text, styles: String.fromCharCode(code).repeat(text.length) });
  const buffer = new TranscriptBuffer(10);
  buffer.line("before", "notice");
  buffer.replaceGrowing([], [styled("grow one", 1)], "assistant");
  buffer.replaceGrowing([styled("final", 2)], [styled("grow two is longer", 3)], "assistant");
  expect(buffer.visible(10)).toEqual([
    { text: "before", voice: "notice" },
    { text: "final", voice: "assistant", styles: "\x02".repeat(5) },
    { text: "grow two", voice: "assistant", styles: "\x03".repeat(8) },
    { text: "is longer", voice: "assistant", styles: "\x03".repeat(9) },
  ]);
  buffer.resize(40);
  expect(buffer.visible(10).map((row) => [row.text, row.styles])).toEqual([["before", undefined], ["final", "\x02".repeat(5)], ["grow two is longer", "\x03".repeat(18)]]);
  buffer.replaceGrowing([styled("done", 4)], [], "assistant");
  buffer.append("plain after", "tool");
  expect(buffer.visible(10).map((row) => row.text)).toEqual(["before", "final", "done", "plain after"]);
  // Packed into blocks and read back, a styled row keeps its styles, a plain one has none.
  for (let i = 0; i < 1200; i++) buffer.replaceGrowing([styled(`row ${i}`, i % 31)], [], "assistant");
  const rows = buffer.visible(1300);
  expect(rows[2]).toEqual({ text: "done", voice: "assistant", styles: "\x04".repeat(4) });
  expect(rows[3]).toEqual({ text: "plain after", voice: "tool" });
  expect(rows.at(-1)).toEqual({ text: "row 1199", voice: "assistant", styles: String.fromCharCode(1199 % 31).repeat(8) });
});

test("Markdown that draws the voice's own look throughout is kept as a plain row, streaming or packed", () => {
  const buffer = new TranscriptBuffer(20);
  buffer.replaceGrowing([{ text: "plain prose", styles: "\0".repeat(11) }], [{ text: "growing", styles: "\0".repeat(7) }], "assistant");
  expect(buffer.visible(10)).toEqual([
    { text: "plain prose", voice: "assistant" },
    { text: "growing", voice: "assistant" },
  ]);
  buffer.replaceGrowing([], [], "assistant");
  // A line styled in part: its plain rows read back without styles, and it re-wraps with its styles in place.
  const line = "plain start then " + "bold".repeat(3);
  buffer.replaceGrowing([{ text: line, styles: "\0".repeat(17) + "\x01".repeat(12) }], [], "assistant");
  for (let i = 0; i < 1100; i++) buffer.replaceGrowing([{ text: `row ${i}`, styles: "\0".repeat(`row ${i}`.length) }], [], "assistant");
  buffer.scrollTo("top", 10);
  expect(buffer.visible(3)).toEqual([
    { text: "plain prose", voice: "assistant" },
    { text: "plain start then", voice: "assistant" },
    { text: "boldboldbold", voice: "assistant", styles: "\x01".repeat(12) },
  ]);
  buffer.resize(40);
  buffer.scrollTo("top", 10);
  expect(buffer.visible(2)[1]).toEqual({ text: line, voice: "assistant", styles: "\0".repeat(17) + "\x01".repeat(12) });
  expect(buffer.visible(3)[2]).toEqual({ text: "row 0", voice: "assistant" });
});

test("packed styles read back exactly, runs longer than a byte counts included", () => {
  const buffer = new TranscriptBuffer(1000);
  const lines = Array.from({ length: 1100 }, (_, i) => {
    const text = `line ${i} `.repeat(1 + (i % 60));
    // Runs of every length from 1 to well past 255, codes changing between them.
    let styles = "";
    for (let run = 0; styles.length < text.length; run++) styles += String.fromCharCode((i + run) % 32).repeat(1 + ((i * 7 + run * 13) % 400));
    return { text, styles: styles.slice(0, text.length) };
  });
  for (const line of lines) buffer.replaceGrowing([line], [], "assistant");
  buffer.scrollTo("top", buffer.length);
  const rows = buffer.visible(buffer.length);
  expect(rows.length).toBe(lines.length);
  rows.forEach((row, i) => expect(row.styles ?? "\0".repeat(row.text.length)).toBe(lines[i]!.styles));
});

test("a transcript of Markdown keeps its styles in a fraction of the text's bytes", () => {
  const { heapStats } = require("bun:jsc") as typeof import("bun:jsc");
  Bun.gc(true);
  const before = heapStats().heapSize;
  const buffer = new TranscriptBuffer(80, 20_000);
  // bench:tui's reply as rendered: a word in four bold or coloured, every row 79 characters.
  const word = (i: number) => `w${String(i).padStart(6, "0")}`;
  for (let row = 0; row < 20_000; row++) {
    const words = Array.from({ length: 10 }, (_, k) => word(row * 10 + k));
    const text = words.join(" ");
    const styles = words.map((w, k) => String.fromCharCode(k % 4 === 1 ? 1 : k % 4 === 3 ? 12 : 0).repeat(w.length)).join("\0");
    buffer.replaceGrowing([{ text, styles }], [], "assistant");
  }
  Bun.gc(true);
  const grown = heapStats().heapSize - before;
  expect(buffer.length).toBe(20_000); // (also keeps the buffer alive until measured)
  // 1.58 MB of text; with a style code a character it all took 3.6 MB, packed as runs 2.5 MB.
  expect(grown).toBeLessThan(3e6);
}, 60_000);

// A folded entry (a sub-run): one header line; its lines kept aside and shown under it once open.
test("a fold is one header line; its lines show under it only while it is open, then go again", () => {
  const buffer = new TranscriptBuffer(60);
  buffer.line("› the task", "user");
  buffer.openFold(1, "explore: where? · running");
  buffer.addToFold(1, "│ ▸ read_file a.ts\n│   allowed: …", "tool");
  buffer.line("after the fold", "result");
  expect(texts(buffer.visible(10))).toEqual(["› the task", "[+] explore: where? · running", "after the fold"]);
  expect(buffer.foldsShown(10)).toEqual([1]);
  expect(buffer.toggleFold(1, 10)).toBe(true);
  expect(texts(buffer.visible(10))).toEqual(["› the task", "[-] explore: where? · running", "│ ▸ read_file a.ts", "│   allowed: …", "after the fold"]);
  expect(buffer.visible(10)[2]).toMatchObject({ voice: "tool", fold: 1 });
  // Added while open: under the header, before what came after.
  buffer.addToFold(1, "│ ■ completed", "notice");
  buffer.setFoldHeader(1, "explore: where? · completed");
  expect(texts(buffer.visible(10))).toEqual(["› the task", "[-] explore: where? · completed", "│ ▸ read_file a.ts", "│   allowed: …", "│ ■ completed", "after the fold"]);
  buffer.toggleFold(1, 10);
  expect(texts(buffer.visible(10))).toEqual(["› the task", "[+] explore: where? · completed", "after the fold"]);
  expect(buffer.toggleFold(7, 10)).toBe(false);
});

test("a header that is the last line is rewritten in place; text streams on after it as a line of its own", () => {
  const buffer = new TranscriptBuffer(60);
  buffer.openFold(1, "explore: q · running, 0 step(s)");
  buffer.setFoldHeader(1, "explore: q · running, 1 step(s)");
  buffer.setFoldHeader(1, "explore: q · completed, 2 step(s)");
  buffer.append("the answer", "assistant");
  buffer.append(" goes on", "assistant");
  expect(texts(buffer.visible(10))).toEqual(["[+] explore: q · completed, 2 step(s)", "the answer goes on"]);
  expect(buffer.length).toBe(2);
});

test("folds keep their state through a resize and through packing (over 512 rows after them), and scrolling puts an opened header on top", () => {
  const buffer = new TranscriptBuffer(40);
  buffer.openFold(1, "explore: first");
  buffer.addToFold(1, "│ step one of the first sub-run", "assistant");
  for (let i = 0; i < 600; i++) buffer.line(`row ${i}`, "result");
  buffer.openFold(2, "explore: second");
  buffer.addToFold(2, "│ step of the second", "assistant");
  buffer.resize(20);
  expect(texts(buffer.visible(3))).toEqual(["row 598", "row 599", "[+] explore: second"]);
  buffer.scrollTo("top", 3);
  expect(buffer.foldsShown(3)).toEqual([1]);
  buffer.toggleFold(1, 3);
  expect(texts(buffer.visible(3))).toEqual(["[-] explore: first", "│ step one of the", "first sub-run"]);
  expect(buffer.follow).toBe(false);
  buffer.toggleFold(2, 3);
  // The end of the transcript fits below its header: the view follows the bottom again.
  expect(texts(buffer.visible(3))).toEqual(["row 599", "[-] explore: second", "│ step of the second"]);
  expect(buffer.follow).toBe(true);
});
