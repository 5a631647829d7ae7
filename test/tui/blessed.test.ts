import { afterAll, describe, expect, spyOn, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { fakeTerminal } from "../helpers/fake-terminal.ts";
import type { Widgets } from "../../src/tui/blessed.ts";
import { writeNow } from "../../src/tui/screen.ts";
import { embeddedTerminfoPath, isLegacyTerminfo, terminalProblem, terminfoFor } from "../../src/tui/terminfo.ts";
import { dropIdleMoves, rewriteShortRuns, rotateRows } from "../../src/tui/cell-writer.ts";

// The same module instances src/tui/blessed.ts patched (one module per resolved path).
const Tput = require("blessed/lib/tput");
const unicode = require("blessed/lib/unicode");

const tty = { isTTY: true };
const notTty = { isTTY: false };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-terminfo-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A file in the newer ncurses format (magic 0x021e), which blessed cannot parse. */
function newFormatFile(): string {
  const file = path.join(dir, "new-format");
  const data = Buffer.alloc(64, 0x41);
  data.writeUInt16LE(0x021e, 0); // magic
  data.writeUInt16LE(20, 2); // names size; the rest is junk blessed would misread
  fs.writeFileSync(file, data);
  return file;
}

describe("terminalProblem", () => {
  test("TERM=dumb is refused with a one-line reason", () => {
    const reason = terminalProblem({ env: { TERM: "dumb" }, stdin: tty, stdout: tty });
    expect(reason).toContain("TERM=dumb has no cursor addressing");
    expect(reason).not.toContain("\n");
  });

  test("stdout or stdin not a terminal is refused", () => {
    expect(terminalProblem({ env: { TERM: "xterm-256color" }, stdin: tty, stdout: notTty })).toStartWith("standard output is not a terminal");
    expect(terminalProblem({ env: { TERM: "xterm-256color" }, stdin: notTty, stdout: tty })).toStartWith("standard input is not a terminal");
    expect(terminalProblem({ env: { TERM: "xterm-256color" }, stdin: {}, stdout: {} })).not.toBeNull();
  });

  test("xterm-256color, screen-256color and an unset TERM are fine", () => {
    for (const TERM of ["xterm-256color", "screen-256color", undefined]) {
      expect(terminalProblem({ env: { TERM }, stdin: tty, stdout: tty })).toBeNull();
    }
  });

  test.skipIf(!fs.existsSync("/lib/terminfo/d/dumb"))("any legacy entry without cursor addressing is refused", () => {
    // TERM may name a terminfo file directly; the system's dumb entry has no `cup`.
    const reason = terminalProblem({ env: { TERM: "/lib/terminfo/d/dumb" }, stdin: tty, stdout: tty });
    expect(reason).toContain("has no cursor addressing");
  });
});

describe("terminfo fallback", () => {
  test("the embedded entry is blessed's legacy-format xterm-256color", () => {
    const data = fs.readFileSync(embeddedTerminfoPath);
    expect(isLegacyTerminfo(data)).toBe(true);
    expect(data.toString("latin1", 12, 26)).toBe("xterm-256color");
  });

  test("a new-format file falls back to the embedded entry", () => {
    const chosen = terminfoFor(newFormatFile());
    expect(chosen).toMatchObject({ embedded: true, file: embeddedTerminfoPath, name: "xterm-256color", cursorAddress: true });
  });

  test("a missing entry falls back to the embedded entry", () => {
    expect(terminfoFor(path.join(dir, "no-such-terminal")).embedded).toBe(true);
    expect(terminfoFor("glassbox-no-such-terminal").embedded).toBe(true);
  });

  test("a legacy-format system entry is used as is", () => {
    const file = path.join(dir, "xterm");
    fs.copyFileSync(require.resolve("blessed/usr/xterm"), file);
    expect(terminfoFor(file)).toMatchObject({ embedded: false, file, name: "xterm" });
  });

  test.skipIf(!fs.existsSync("/lib/terminfo/s/screen-256color") || isLegacyTerminfo(fs.readFileSync("/lib/terminfo/s/screen-256color")))(
    "the system's new-format screen-256color gives the embedded entry",
    () => {
      expect(terminfoFor("screen-256color").embedded).toBe(true);
    },
  );

  test("Tput set up on a new-format file compiles the embedded entry and prints nothing", () => {
    const errors = spyOn(console, "error");
    const writes = spyOn(process.stderr, "write");
    try {
      const tput = new Tput({ terminal: newFormatFile() });
      expect(tput.error).toBeNull();
      expect(tput.info.file).toBe(embeddedTerminfoPath);
      expect(tput.cup(1, 2)).toBe("\x1b[2;3H");
      expect(errors).not.toHaveBeenCalled();
      expect(writes).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
      writes.mockRestore();
    }
  });
});

test("writeNow puts what blessed buffered on the terminal at once, where blessed waits for the event loop to turn", async () => {
  const Program = require("blessed/lib/program");
  const written: string[] = [];
  const output = Object.assign(new PassThrough(), { write: (chunk: unknown) => written.push(String(chunk)) > 0 });
  const program = new Program({ input: new PassThrough(), output, terminal: "xterm-256color", buffer: true });
  program._write("the frame");
  expect(written).toEqual([]); // blessed's own way: on setImmediate
  writeNow({ program } as unknown as Widgets.Screen);
  expect(written).toEqual(["the frame"]);
  await new Promise((resolve) => setImmediate(resolve));
  expect(written).toEqual(["the frame"]); // written once
  program.destroy();
});

test("unicode.charWidth('\\t') never loads the blessed package entry", () => {
  expect(unicode.blessed?.screen).toBe(require("blessed/lib/widgets/screen"));
  expect(unicode.charWidth("\t")).toBe(8); // no screen: blessed's default tab width
});

test("the quick answers for printable ASCII leave every other character to blessed's own measure", () => {
  expect([..." aZ~"].map((ch) => unicode.charWidth(ch))).toEqual([1, 1, 1, 1]);
  expect(unicode.charWidth("中")).toBe(2);
  expect(unicode.charWidth("é")).toBe(1);
  expect(unicode.charWidth("\u0301")).toBe(0); // combining
  expect(unicode.charWidth("\u0000")).toBe(0);
  expect(unicode.charWidth("a中", 1)).toBe(2); // at an index: not the first character
  expect(unicode.codePointAt("a😀", 1)).toBe(0x1f600);
  expect(unicode.codePointAt("ab", 5)).toBeUndefined();
});

describe("drawing economies", () => {
  type Cell = [number, string];
  const row = (text: string, attr = 0): Cell[] & { dirty?: boolean } => Object.assign([...text].map((ch): Cell => [attr, ch]), { dirty: true });

  test("short unchanged runs between changed cells are marked to be written again; long ones and the row's end are not", () => {
    const drawn = [row("aaaa bbbb cccc          end")];
    const lines = [row("xxxx bbbb yyyy          end")];
    // Changed: 0-3 and 10-13. Unchanged between them: " bbbb " (6 cells: too long), then 10 spaces and "end" up to the row's end.
    rewriteShortRuns(lines, drawn, 0, 0);
    expect(drawn[0]!.map((cell) => cell[1]).join("")).toBe("aaaa bbbb cccc          end");
    const drawn2 = [row("w1 w2 w3")];
    const lines2 = [row("w4 w5 w6")];
    rewriteShortRuns(lines2, drawn2, 0, 0);
    // "w" and " " are unchanged between changed digits: rewritten (marked unknown), so one byte each instead of a cursor move.
    expect(drawn2[0]!.map((cell) => (cell[1] === "\u0000" ? "?" : cell[1])).join("")).toBe("w1??2??3");
  });

  test("a run in other colours than the cell before it, a row not dirty, or line-drawing characters stay skipped", () => {
    const drawn = [row("w1 w2")];
    const lines = [Object.assign([[0, "w"], [0, "4"], [5, " "], [0, "w"], [0, "5"]] as Cell[], { dirty: true })];
    drawn[0]![2] = [5, " "];
    rewriteShortRuns(lines, drawn, 0, 0);
    expect(drawn[0]![2]![1]).toBe(" ");
    const clean = [row("w1 w2")];
    const unchanged = Object.assign(row("w4 w5"), { dirty: false });
    rewriteShortRuns([unchanged], clean, 0, 0);
    expect(clean[0]!.some((cell) => cell[1] === "\u0000")).toBe(false);
    const box = [row("│a│b")];
    rewriteShortRuns([row("│c│d")], box, 0, 0);
    expect(box[0]!.some((cell) => cell[1] === "\u0000")).toBe(false);
  });

  test("rotating rows moves them within the range and brings the ones pushed out back blank at the other end", () => {
    const rows = () => ["r0", "r1", "r2", "r3", "r4", "r5"].map((text) => row(text, 7));
    const text = (all: Array<Cell[] & { dirty?: boolean }>) => all.map((r) => r.map((cell) => cell[1]).join(""));
    const up = rows();
    const reused = up[1];
    rotateRows(up, 2, 1, 4, 3);
    expect(text(up)).toEqual(["r0", "r3", "r4", "  ", "  ", "r5"]);
    expect(up[3]).toBe(reused!); // the row that left, not a new one
    expect(up[3]!.dirty).toBe(false);
    expect(up[3]!.every((cell) => cell[0] === 3)).toBe(true);
    const down = rows();
    rotateRows(down, -1, 1, 4, 3);
    expect(text(down)).toEqual(["r0", "  ", "r1", "r2", "r3", "r5"]);
    const all = rows();
    rotateRows(all, 9, 0, 5, 3); // more than the range: all of it blank
    expect(text(all)).toEqual(["  ", "  ", "  ", "  ", "  ", "  "]);
  });

  test("a cursor move followed at once by another is dropped; every other one stays", () => {
    expect(dropIdleMoves("\x1b[2;1H\x1b[2;101Hsteps\x1b[3;1Hcalls\x1b[4;1H\x1b[5C")).toBe("\x1b[2;101Hsteps\x1b[3;1Hcalls\x1b[4;1H\x1b[5C");
  });
});

describe("a screen made inside tmux", () => {
  const saved = { PATH: process.env.PATH, TMUX: process.env.TMUX, TERM_PROGRAM: process.env.TERM_PROGRAM, TERM_PROGRAM_VERSION: process.env.TERM_PROGRAM_VERSION };
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-fake-tmux-"));
  const ranMark = path.join(bin, "ran");
  // A tmux that says which version it is and leaves a mark that it ran.
  fs.writeFileSync(path.join(bin, "tmux"), `#!/bin/sh\necho ran >> '${ranMark}'\necho 'tmux 9.9'\n`, { mode: 0o755 });
  const inTmux = (run: () => void) => {
    fs.rmSync(ranMark, { force: true });
    Object.assign(process.env, { PATH: `${bin}${path.delimiter}${saved.PATH}`, TMUX: "/tmp/tmux-1000/default,4242,0", TERM_PROGRAM: "tmux", TERM_PROGRAM_VERSION: "3.3a" });
    try {
      run();
    } finally {
      for (const [key, value] of Object.entries(saved)) value === undefined ? delete process.env[key] : (process.env[key] = value);
    }
  };
  afterAll(() => fs.rmSync(bin, { recursive: true, force: true }));

  test("blessed's own Program runs `tmux -V` (what the screen avoids)", () => {
    const Program = require("blessed/lib/program");
    inTmux(() => {
      const program = new Program({ input: new PassThrough(), output: new PassThrough(), terminal: "xterm-256color", tput: false });
      expect(program.tmuxVersion).toBe(9.9);
      expect(fs.existsSync(ranMark)).toBe(true);
      program.destroy(); // out of blessed's list of live programs, which flushes each at exit
    });
  });

  test("createScreen runs no `tmux -V`, and the screen still knows it is in tmux and which version", () => {
    inTmux(() => {
      const { screen } = fakeTerminal();
      expect(fs.existsSync(ranMark)).toBe(false);
      expect(screen.program.tmux).toBe(true); // its escape passthrough depends on it
      expect(screen.program.tmuxVersion).toBe(3.3);
      expect(process.env.TMUX).toBe("/tmp/tmux-1000/default,4242,0");
    });
  });
});
