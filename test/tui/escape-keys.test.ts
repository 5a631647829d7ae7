import { expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { createScreen } from "../../src/tui/screen.ts";
import { escapePieces } from "../../src/tui/escape-keys.ts";

test.each([
  ["\x1b\x03", ["\x1b", "\x03"]],
  ["ab\x1b\x03cd", ["ab\x1b", "\x03cd"]],
  ["\x1b\x03\x1b\x03", ["\x1b", "\x03\x1b", "\x03"]],
  ["\x1b\t", ["\x1b", "\t"]],
  ["\x1b/help", ["\x1b", "/help"]],
  ["\x1b\x1b\x1b.", ["\x1b\x1b\x1b", "."]],
  ["\x1b\xc3\xa9", ["\x1b", "\xc3\xa9"]],
  // Alt+Backspace, Esc+Enter (blessed splits these itself), arrows and Alt+letter stay whole.
  ["\x1b\b", ["\x1b\b"]],
  ["\x1b\r", ["\x1b\r"]],
  ["\x1b[A\x1bx\x1bOP\x1b \x1b\x7f", ["\x1b[A\x1bx\x1bOP\x1b \x1b\x7f"]],
  ["\x1b", ["\x1b"]],
])("%j is read as %j", (chunk, pieces) => {
  expect(escapePieces(Buffer.from(chunk, "latin1")).map((piece) => piece.toString("latin1"))).toEqual(pieces);
});

// What blessed's own key reader makes of the bytes a terminal sends: Esc then Ctrl-C, Esc then "/", in one read.
test("Esc and Ctrl-C, or Esc and /, read together reach the screen as two keys", async () => {
  const output = Object.assign(new PassThrough(), { columns: 80, rows: 24, isTTY: true });
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => {} });
  const screen = createScreen({ input: input as never, output: output as never, terminal: "xterm-256color" });
  const keys: string[] = [];
  screen.on("keypress", (_ch: unknown, key: { full: string }) => keys.push(key.full));
  input.write(Buffer.from("\x1b\x03"));
  input.write(Buffer.from("\x1b/"));
  // The stream hands the chunks on asynchronously; the keys, or none, arrive within a few ticks.
  for (let ticks = 0; keys.length < 4 && ticks < 100; ticks++) await Bun.sleep(1);
  screen.destroy();
  expect(keys).toEqual(["escape", "C-c", "escape", "/"]);
});
