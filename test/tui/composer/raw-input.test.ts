import { describe, expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import { InputSplitter, PASTE_END, PASTE_START, RawInput } from "../../../src/tui/composer/raw-input.ts";

describe("the terminal's input, split before blessed reads it", () => {
  test("a bracketed paste comes out whole, with the keys around it in order", () => {
    const splitter = new InputSplitter();
    expect(splitter.split(`ab${PASTE_START}line 1\rline 2\r${PASTE_END}\r`)).toEqual([
      { kind: "keys", text: "ab" },
      { kind: "paste", text: "line 1\rline 2\r" },
      { kind: "keys", text: "\r" },
    ]);
  });

  test("a paste over several reads, its markers cut between them", () => {
    const splitter = new InputSplitter();
    const pieces = [`x${PASTE_START.slice(0, 4)}`, `${PASTE_START.slice(4)}first\r`, "second", PASTE_END.slice(0, 3), `${PASTE_END.slice(3)}y`].flatMap((chunk) => splitter.split(chunk));
    expect(pieces).toEqual([
      { kind: "keys", text: "x" },
      { kind: "paste", text: "first\rsecond" },
      { kind: "keys", text: "y" },
    ]);
  });

  test("Enter inside a paste is text, never a key", () => {
    const splitter = new InputSplitter();
    const pieces = splitter.split(`${PASTE_START}a\rb`);
    expect(pieces).toEqual([]);
    expect(splitter.split(`\r${PASTE_END}`)).toEqual([{ kind: "paste", text: "a\rb\r" }]);
  });

  test("Alt+Enter (ESC CR, or ESC LF) is a newline; a lone Esc at the end of a read is not held back", () => {
    const splitter = new InputSplitter();
    expect(splitter.split("a\x1b\rb\x1b\n")).toEqual([{ kind: "keys", text: "a" }, { kind: "newline" }, { kind: "keys", text: "b" }, { kind: "newline" }]);
    expect(splitter.split("\x1b")).toEqual([{ kind: "keys", text: "\x1b" }]);
    expect(splitter.split("\x1b[A")).toEqual([{ kind: "keys", text: "\x1b[A" }]);
  });

  test("RawInput passes keys on as data, pastes and newlines as their own events, in order, UTF-8 cut between reads", () => {
    const stdin = new EventEmitter() as unknown as NodeJS.ReadStream;
    const input = new RawInput(stdin);
    const seen: string[] = [];
    input.on("data", (data: Buffer) => seen.push(`data ${data.toString()}`));
    input.on("paste", (text: string) => seen.push(`paste ${text}`));
    input.on("newline", () => seen.push("newline"));
    const bytes = Buffer.from(`é${PASTE_START}幅\r${PASTE_END}\x1b\rz`);
    stdin.emit("data", bytes.subarray(0, 1));
    stdin.emit("data", bytes.subarray(1, 10));
    stdin.emit("data", bytes.subarray(10));
    expect(seen).toEqual(["data é", "paste 幅\r", "newline", "data z"]);
  });
});
