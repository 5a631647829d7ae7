/**
 * The one place glassbox gets blessed from.
 *
 * blessed 0.1.81 was written for Node with its sources on disk. Inside a `bun build --compile`
 * binary four things break; this module fixes each one at load time, without editing
 * node_modules:
 *
 * 1. Widgets: the package entry (lib/blessed.js → lib/widget.js) loads every widget by a
 *    computed name, `require('./widgets/' + file)`, which the binary cannot resolve. We never
 *    load the entry; we require the file of each widget we use by a literal path.
 * 2. lib/unicode.js measures a tab with a lazy `require('../')` (the package entry again). It
 *    only reads `exports.blessed.screen.global`, so we hand it the screen constructor first.
 * 3. blessed's fallback terminfo lives at `__dirname/../usr`, and `__dirname` is frozen at build
 *    time. We embed blessed's own `usr/xterm-256color` in the binary instead.
 * 4. Debian 12's xterm-256color, screen-256color and tmux-256color entries use the newer
 *    ncurses format (magic 0x021e, 32-bit numbers) that blessed misparses; for screen-256color
 *    it also prints generated code to stderr. We accept only the legacy format (magic 0x011a)
 *    from the system database and otherwise use the embedded entry.
 */
import fs from "node:fs";
import path from "node:path";
import type { Widgets } from "blessed";
import { belowTopTier } from "../platform/jit.ts";
// @ts-ignore -- a data file. Bun embeds it in the compiled binary and the default export is its
// path (under $bunfs inside the binary, the real file when run from source). No .d.ts covers it.
import embeddedTerminfoFile from "blessed/usr/xterm-256color" with { type: "file" };
import { HANG_UPS } from "../platform/hang-ups.ts";
import { separateEscapeKeys } from "./escape-keys.ts";

export type { Widgets };

/* Literal requires only: see 1. above. (These files have no types of their own.) */
const Screen = require("blessed/lib/widgets/screen");
const Element = require("blessed/lib/widgets/element");
const Box = require("blessed/lib/widgets/box");
const Text = require("blessed/lib/widgets/text");
const ScrollableBox = require("blessed/lib/widgets/scrollablebox");
const ScrollableText = require("blessed/lib/widgets/scrollabletext");
const List = require("blessed/lib/widgets/list");
const Log = require("blessed/lib/widgets/log");
const Textarea = require("blessed/lib/widgets/textarea");
const Textbox = require("blessed/lib/widgets/textbox");
const unicode = require("blessed/lib/unicode");
const Tput = require("blessed/lib/tput");

/* 2. unicode.charWidth('\t') reads `exports.blessed.screen.global` (a static on Screen). */
unicode.blessed = { screen: Screen };

/*
 * blessed measures every cell it draws (unicode.charWidth) and reads every character of a widget's
 * content (unicode.codePointAt) through general helpers: a tenth of a frame's time while text
 * pours in. Printable ASCII, nearly every cell, is answered first; everything else as before.
 */
const charWidth: (str: string | number, i?: number) => number = unicode.charWidth;
function asciiFirstWidth(str: string | number, i?: number): number {
  if (typeof str === "string" && !i && plainAscii(str)) return 1;
  return charWidth(str, i);
}
const codePointAt: (str: string, position?: number) => number | undefined = unicode.codePointAt;
function stringFirstCodePoint(str: string, position?: number): number | undefined {
  return typeof str === "string" ? str.codePointAt(position || 0) : codePointAt(str, position);
}
unicode.charWidth = asciiFirstWidth;
unicode.codePointAt = stringFirstCodePoint;
belowTopTier(asciiFirstWidth, stringFirstCodePoint);

/* ---------- 3 and 4: terminfo ---------- */

/** Where the embedded (legacy-format) xterm-256color entry is: `$bunfs/…` inside the binary. */
export const embeddedTerminfoPath: string = embeddedTerminfoFile as unknown as string;

/** Magic number of the terminfo format blessed can parse (16-bit numbers; octal 0432). */
const LEGACY_TERMINFO_MAGIC = 0x011a;

export function isLegacyTerminfo(data: Uint8Array): boolean {
  return data.length >= 12 && (data[0]! | (data[1]! << 8)) === LEGACY_TERMINFO_MAGIC;
}

let embeddedData: Buffer | undefined;
function embeddedTerminfo(): Buffer {
  return (embeddedData ??= fs.readFileSync(embeddedTerminfoPath));
}

/** What blessed's `parseTerminfo` returns (the parts we read). */
interface TerminfoInfo {
  name: string;
  names: string[];
  file: string;
  strings: Record<string, string>;
}

/** The bits of blessed's Tput this module calls. */
interface TputInternals {
  terminal: string;
  _prefix(term: string): string;
  parseTerminfo(data: Buffer, file: string): TerminfoInfo;
  compile(info: TerminfoInfo): TerminfoInfo;
  inject(info: TerminfoInfo): void;
  readTerminfo(term?: string): TerminfoInfo;
}

/** The system's entry for `term`, only if it is in the legacy format blessed parses. */
function systemTerminfo(tput: TputInternals, term: string): TerminfoInfo | null {
  let file: string;
  let data: Buffer;
  try {
    file = path.normalize(tput._prefix(term)); // the TERMINFO / TERMINFO_DIRS / ~/.terminfo / … search
    data = fs.readFileSync(file);
  } catch {
    return null; // not found
  }
  if (!isLegacyTerminfo(data)) return null; // e.g. Debian 12's 0x021e entries
  try {
    return tput.parseTerminfo(data, file);
  } catch {
    return null; // blessed's parser asserts on malformed entries
  }
}

let embeddedParsed: TerminfoInfo | undefined;
/**
 * The embedded entry, parsed once per process: the terminal check and the screen both read it
 * (1–2 ms each at start). Each caller gets its own copy, since setting up a screen writes into it.
 */
function parseEmbedded(tput: TputInternals): TerminfoInfo {
  embeddedParsed ??= tput.parseTerminfo(embeddedTerminfo(), embeddedTerminfoPath);
  const info = embeddedParsed as TerminfoInfo & Record<"bools" | "numbers", Record<string, unknown>>;
  return { ...info, names: [...info.names], bools: { ...info.bools }, numbers: { ...info.numbers }, strings: { ...info.strings } } as TerminfoInfo;
}

/** Run `fn` with console.error silenced: blessed's compiler prints generated code there on failure. */
function quietly<T>(fn: () => T): T | null {
  const error = console.error;
  console.error = () => {};
  try {
    return fn();
  } catch {
    return null;
  } finally {
    console.error = error;
  }
}

/**
 * `Tput.setup()` (always reached, since blessed.screen() passes `tput: true`) calls
 * `injectTerminfo(term)` → `readTerminfo(term)`. Both are replaced so that they never throw and
 * never reach blessed's `__dirname` fallbacks: system legacy entry if it parses and compiles,
 * else the embedded xterm-256color.
 */
const proto = Tput.prototype as TputInternals & { injectTerminfo(term?: string): void };

proto.readTerminfo = function readTerminfo(this: TputInternals, term?: string): TerminfoInfo {
  return systemTerminfo(this, term || this.terminal) ?? parseEmbedded(this);
};

proto.injectTerminfo = function injectTerminfo(this: TputInternals, term?: string): void {
  const info = this.readTerminfo(term);
  if (info.file !== embeddedTerminfoPath) {
    const compiled = quietly(() => this.compile(info));
    if (compiled) return this.inject(compiled);
  }
  injectLazily(this, parseEmbedded(this));
};

type Capability = string | number | boolean | ((params: unknown[]) => string);

/** The parts of a Tput that compile() and inject() use. */
interface TputCompiler {
  detectFeatures(info: TerminfoInfo): void;
  _compile(info: TerminfoInfo, key: string, value: unknown): Capability;
  inject(info: TerminfoInfo): void;
}

/**
 * blessed's compile() then inject(), except that a string capability is compiled into a function
 * (one `new Function` each) only when it is first used: a screen uses a few dozen of the ~400 in
 * the entry, and compiling all of them took 6–10 ms and ~3 MB at every start. Only for the
 * embedded entry, which is known to compile; a system entry is still compiled at once, so that a
 * failure falls back to the embedded one.
 */
function injectLazily(tput: TputInternals, info: TerminfoInfo): void {
  const compiler = tput as unknown as TputCompiler;
  const raw = info as unknown as Record<"bools" | "numbers" | "strings" | "all", Record<string, unknown>> & { methods: Record<string, Capability> };
  compiler.detectFeatures(info);
  const all: Record<string, unknown> = (raw.all = {});
  const methods: Record<string, Capability> = {};
  const lazy = (key: string) => {
    let compiled: ((params: unknown[]) => string) | undefined;
    return function (this: unknown, params: unknown[]): string {
      compiled ??= compiler._compile(info, key, all[key]) as (params: unknown[]) => string;
      return compiled.call(this, params);
    };
  };
  for (const type of ["bools", "numbers"] as const) {
    for (const [key, value] of Object.entries(raw[type])) methods[key] = all[key] = value as Capability;
  }
  for (const [key, value] of Object.entries(raw.strings)) {
    all[key] = value;
    methods[key] = lazy(key);
  }
  for (const key of Tput.bools as string[]) methods[key] ??= false;
  for (const key of Tput.numbers as string[]) methods[key] ??= -1;
  for (const key of Tput.strings as string[]) methods[key] ??= () => "";
  for (const key of Object.keys(methods)) {
    for (const alias of (Tput.alias as Record<string, string[]>)[key] ?? []) methods[alias] = methods[key]!;
  }
  raw.methods = methods;
  compiler.inject(info);
}

/** Which terminfo entry blessed would use for `term`: the system's file or the embedded one. */
export function terminfoFor(term: string): { name: string; file: string; embedded: boolean; cursorAddress: boolean } {
  const tput = new Tput({}) as TputInternals; // no terminal given: the constructor does not set up
  const info = tput.readTerminfo(term);
  return {
    name: info.name,
    file: info.file,
    embedded: info.file === embeddedTerminfoPath,
    cursorAddress: typeof info.strings.cursor_address === "string",
  };
}

/* ---------- terminal check ---------- */

export interface TerminalContext {
  env?: Record<string, string | undefined>;
  stdin?: { isTTY?: boolean };
  stdout?: { isTTY?: boolean };
}

/**
 * Why the TUI cannot run here, as one line, or null if it can. Check before opening a screen:
 * print it and exit 1.
 */
export function terminalProblem(context: TerminalContext = {}): string | null {
  const env = context.env ?? process.env;
  const stdin = context.stdin ?? process.stdin;
  const stdout = context.stdout ?? process.stdout;
  if (!stdout.isTTY) return "standard output is not a terminal; the TUI needs one (for headless use: glassbox run \"TASK\")";
  if (!stdin.isTTY) return "standard input is not a terminal; the TUI needs one (for headless use: glassbox run \"TASK\")";
  const term = (env.TERM ?? "").toLowerCase();
  const suggestion = "run glassbox in a terminal such as xterm-256color";
  if (term === "dumb") return `TERM=dumb has no cursor addressing; ${suggestion}`;
  if (term && !hasCursorAddress(term)) return `TERM=${term} has no cursor addressing; ${suggestion}`;
  return null;
}

function hasCursorAddress(term: string): boolean {
  try {
    return terminfoFor(term).cursorAddress;
  } catch {
    return true; // cannot tell: let the screen try
  }
}

/* ---------- typed constructors ---------- */

type Make<O, W> = (options?: O) => W;

/** Tags off unless asked for: model text must never be read as blessed markup. */
function untagged<O extends { tags?: boolean }, W>(widget: unknown): Make<O, W> {
  const make = widget as (options: O) => W;
  return (options?: O) => make({ tags: false, ...options } as O);
}

export const blessed = {
  screen: Screen as Make<Widgets.IScreenOptions, Widgets.Screen>,
  element: untagged<Widgets.ElementOptions, Widgets.BlessedElement>(Element),
  box: untagged<Widgets.BoxOptions, Widgets.BoxElement>(Box),
  text: untagged<Widgets.TextOptions, Widgets.TextElement>(Text),
  scrollablebox: untagged<Widgets.ScrollableBoxOptions, Widgets.ScrollableBoxElement>(ScrollableBox),
  scrollabletext: untagged<Widgets.ScrollableTextOptions, Widgets.ScrollableTextElement>(ScrollableText),
  list: untagged<Widgets.ListOptions<Widgets.ListElementStyle>, Widgets.ListElement>(List),
  log: untagged<Widgets.LogOptions, Widgets.Log>(Log),
  textarea: untagged<Widgets.TextareaOptions, Widgets.TextareaElement>(Textarea),
  textbox: untagged<Widgets.TextboxOptions, Widgets.TextboxElement>(Textbox),
};

/* ---------- screen ---------- */

const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };
/**
 * How long a signal's exit waits for the cleanups; a second Ctrl-C ends glassbox at once (the
 * default action), further hang-ups are ignored meanwhile (HANG_UPS says why).
 */
const SIGNAL_CLEANUP_MS = 5000;
const signalCleanups = new Set<() => Promise<unknown>>();
const ignoreSignal = () => {};

/**
 * Work a signal's exit waits for, after the terminal is restored: stopping what glassbox started
 * that outlives it otherwise (a llama-server holding gigabytes). Returns its removal.
 */
export function onSignalExit(cleanup: () => Promise<unknown>): () => void {
  signalCleanups.add(cleanup);
  return () => signalCleanups.delete(cleanup);
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * A screen with glassbox's settings, whose terminal is restored (alternate buffer left, cursor
 * shown, raw mode off) on exit, uncaught exception, unhandled rejection, SIGTERM, SIGHUP and
 * SIGINT. Errors are written to stderr after the restore, so they land in the normal buffer.
 * A signal's exit waits for the cleanups given to onSignalExit. Ctrl-C in raw mode is a key, not
 * SIGINT: the caller binds "C-c".
 *
 * `forceUnicode` defaults to true (line borders and wide characters even under LANG=C); pass
 * `forceUnicode: undefined` to let blessed decide from the locale.
 */
export function createScreen(options: Widgets.IScreenOptions = {}): Widgets.Screen {
  const screen = withoutTmuxVersionProbe(() =>
    blessed.screen({
      smartCSR: true,
      fullUnicode: true,
      forceUnicode: true,
      autoPadding: true,
      title: "glassbox",
      ...options,
    }),
  );

  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    uninstall();
    try {
      screen.destroy();
    } catch {
      // the terminal may be gone (SIGHUP); nothing left to restore
    }
  };
  const die = (what: string) => (error: unknown) => {
    restore();
    fs.writeSync(2, `glassbox: ${what}: ${describe(error)}\n`);
    process.exit(1);
  };
  const onException = die("uncaught exception");
  const onRejection = die("unhandled rejection");
  const onSignal = (signal: NodeJS.Signals) => {
    restore();
    for (const repeated of HANG_UPS) process.on(repeated, ignoreSignal);
    const cleanups = Promise.allSettled([...signalCleanups].map(async (cleanup) => cleanup()));
    void Promise.race([cleanups, Bun.sleep(SIGNAL_CLEANUP_MS)]).then(() => process.exit(SIGNAL_EXIT[signal] ?? 1));
  };
  const signals = Object.keys(SIGNAL_EXIT) as NodeJS.Signals[];
  // blessed's own uncaughtException / SIGTERM / SIGINT handlers stand aside when another
  // listener exists, so these are the ones that act.
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  for (const signal of signals) process.on(signal, onSignal);
  process.on("exit", restore);
  function uninstall() {
    process.off("uncaughtException", onException);
    process.off("unhandledRejection", onRejection);
    for (const signal of signals) process.off(signal, onSignal);
    process.off("exit", restore);
  }
  drawEconomically(screen);
  separateEscapeKeys(screen.program.input);
  // The caller destroying the screen itself ends our duty too.
  screen.once("destroy", () => {
    restored = true;
    uninstall();
  });
  return screen;
}

/**
 * Inside tmux, blessed's Program runs `tmux -V` as a synchronous child process (about 10 ms of
 * the first frame on a 2-core machine) only to choose how to turn on all-motion mouse tracking,
 * which glassbox never does. The screen is made with TMUX out of the environment, then told it
 * is in tmux (its escape passthrough needs that) and the version tmux itself puts in the
 * environment (blessed's own fallback, 2, without it).
 */
function withoutTmuxVersionProbe(make: () => Widgets.Screen): Widgets.Screen {
  const env = process.env;
  const tmux = env.TMUX;
  if (tmux === undefined) return make();
  delete env.TMUX;
  let screen: Widgets.Screen;
  try {
    screen = make();
  } finally {
    env.TMUX = tmux;
  }
  const version = env.TERM_PROGRAM === "tmux" ? Number.parseFloat(env.TERM_PROGRAM_VERSION ?? "") : NaN;
  screen.program.tmux = true;
  screen.program.tmuxVersion = Number.isNaN(version) ? 2 : version;
  return screen;
}

/* ---------- drawing ---------- */

/**
 * Renders only `elements` and draws only their rows: for a frame where nothing else changed (a
 * key typed). Nothing may overlap them; a full `screen.render()` is the general case.
 */
export function drawOnly(screen: Widgets.Screen, elements: Widgets.BlessedElement[]): void {
  let top = Infinity;
  let bottom = -Infinity;
  for (const element of elements) {
    element.render();
    const drawn = (element as unknown as { lpos?: { yi: number; yl: number } }).lpos;
    if (!drawn) continue;
    top = Math.min(top, drawn.yi);
    bottom = Math.max(bottom, drawn.yl - 1);
  }
  if (top > bottom) return;
  const internals = screen as unknown as { draw(start: number, end: number): void; focused?: { _updateCursor?(get: boolean): void } };
  internals.draw(top, bottom);
  internals.focused?._updateCursor?.(true);
}

/**
 * Writes what blessed holds for the terminal now. blessed writes a frame out on setImmediate, so
 * work that goes on in promise callbacks meanwhile holds the frame back for as long as it takes.
 */
export function writeNow(screen: Widgets.Screen): void {
  (screen.program as unknown as { flush(): void }).flush();
}

/**
 * Sets a widget's content when it changed, and only then. blessed's own setContent() first clears
 * the widget's area (clearPos), so every line under it is marked dirty and diffed cell by cell at
 * the next render even when nothing changed; a widget's render fills its whole area anyway. Use
 * for widgets that stay in place (a resize reallocates and clears the whole screen).
 */
export function updateContent(element: Widgets.BlessedElement, content: string): void {
  if ((element as unknown as { content: string }).content === content) return;
  (element as unknown as { setContent(content: string, noClear: boolean): void }).setContent(content, true);
}

/** A cell of blessed's screen buffers: its attribute (colours and flags packed) and its character. */
type Cell = [attr: number, ch: string];
type Row = Cell[] & { dirty?: boolean };

/** Never a character on screen: a cell of the terminal's record marked so, differs from every cell. */
const UNKNOWN = "\u0000";

/**
 * blessed skips a cell that did not change with "cursor forward" (`ESC [ n C`, 4 bytes), even
 * a single one between two changed words; a new row of text costs a quarter more bytes than its
 * characters. Runs of at most this many unchanged cells are written again instead, where writing
 * them costs no more: same colours as the changed cell before them, plain ASCII (no line-drawing
 * mode to switch).
 */
const REWRITE_RUN = 3;

function plainAscii(ch: string): boolean {
  return ch.length === 1 && ch >= " " && ch <= "~";
}

/** Whether cell `x` of a row is what the terminal already shows there. */
function unchanged(line: Row, old: Row, x: number): boolean {
  return line[x]![0] === old[x]![0] && line[x]![1] === old[x]![1];
}

/** Marks the short unchanged runs of the dirty rows in `lines` as unknown in `drawn`, so blessed writes them. */
export function rewriteShortRuns(lines: Row[], drawn: Row[], start: number, end: number): void {
  for (let y = start; y <= end; y++) {
    const line = lines[y];
    const old = drawn[y];
    if (!line?.dirty || !old) continue;
    for (let x = 1; x < line.length; x++) {
      const before = line[x - 1]!;
      // A run starts after a changed cell.
      if (!unchanged(line, old, x) || unchanged(line, old, x - 1)) continue;
      let runEnd = x;
      while (runEnd < line.length && runEnd - x <= REWRITE_RUN && unchanged(line, old, runEnd)) runEnd++;
      // Only a short run with a changed cell after it: a long one, or the rest of a row, is skipped cheaper.
      if (runEnd - x > REWRITE_RUN || runEnd === line.length || !plainAscii(before[1])) continue;
      let same = true;
      for (let i = x; i < runEnd && same; i++) same = line[i]![0] === before[0] && plainAscii(line[i]![1]);
      if (same) for (let i = x; i < runEnd; i++) old[i]![1] = UNKNOWN;
      x = runEnd;
    }
  }
}

/** A cursor move that another one follows at once does nothing; blessed starts every row it draws with one. */
export function dropIdleMoves(output: string): string {
  return output.replace(/\x1b\[\d+;1H(?=\x1b\[\d+;\d+H)/g, "");
}

/**
 * Fewer bytes per frame, the same screen: what a user pays over SSH, in a slow terminal or on
 * battery (scripts/bench-tui.ts measures it).
 */
function drawEconomically(screen: Widgets.Screen): void {
  const internals = screen as unknown as { lines: Row[]; olines: Row[]; draw(start: number, end: number): void; program: { _write(text: string): unknown } };
  const draw = internals.draw;
  internals.draw = function (this: typeof internals, start: number, end: number) {
    rewriteShortRuns(this.lines, this.olines, start, end);
    return draw.call(this, start, end);
  };
  const write = internals.program._write;
  internals.program._write = function (this: unknown, text: string) {
    return write.call(this, dropIdleMoves(text));
  };
}

/** The parts of blessed's screen that scrolling rows touches. */
interface ScrollInternals {
  lines: Row[];
  olines: Row[];
  dattr: number;
  height: number;
  _buf: string;
  tput: { strings: Record<string, unknown>; csr(top: number, bottom: number): string; cup(y: number, x: number): string; dl(n: number): string; il(n: number): string };
}

/**
 * Scrolls rows `top`..`bottom` of the terminal by `n` rows (up when positive: rows leave at the
 * top, blank ones come in at the bottom; down when negative) with a scroll region, and blessed's
 * two records of the screen (`lines`, what to show, and `olines`, what the terminal shows) with
 * them. What blessed's Screen.deleteLine and insertLine do, but the rows that leave come back as
 * the blank ones instead of two new rows of cells being made for every row scrolled (a tenth of a
 * frame's time while text pours in, and as much garbage). Does nothing on a terminal without a
 * scroll region: the frame's diff then writes every row.
 */
export function scrollRows(screen: Widgets.Screen, n: number, top: number, bottom: number): void {
  const s = screen as unknown as ScrollInternals;
  const { strings } = s.tput;
  if (n === 0 || !strings.change_scroll_region || !strings.delete_line || !strings.insert_line) return;
  s._buf += s.tput.csr(top, bottom) + s.tput.cup(top, 0) + (n > 0 ? s.tput.dl(n) : s.tput.il(-n)) + s.tput.csr(0, s.height - 1);
  for (const rows of [s.lines, s.olines]) rotateRows(rows, n, top, bottom, s.dattr);
}

/** Moves rows top..bottom by `n` within that range; the rows pushed out come back blank at the other end. */
export function rotateRows(rows: Row[], n: number, top: number, bottom: number, blankAttr: number): void {
  const count = Math.min(Math.abs(n), bottom - top + 1);
  const leaving = n > 0 ? rows.slice(top, top + count) : rows.slice(bottom - count + 1, bottom + 1);
  if (n > 0) rows.copyWithin(top, top + count, bottom + 1);
  else rows.copyWithin(top + count, top, bottom - count + 1);
  const first = n > 0 ? bottom - count + 1 : top;
  leaving.forEach((row, i) => {
    for (const cell of row) {
      cell[0] = blankAttr;
      cell[1] = " ";
    }
    row.dirty = false;
    rows[first + i] = row;
  });
}

/** Text that blessed lays out one cell per character, with nothing to look up. */
const PLAIN_ROW = /^[\x20-\x7e]*$/;

/**
 * Puts one row of text (sanitized, no tags) into cells `xi`..`xl - 1` of `line` in `attr`, then
 * blanks in `fill` up to `xl`: the cells blessed's own render would make of the same row in a box
 * without tags, but without parsing tags and escape codes, wrapping, or measuring each character
 * on every frame. A wide character takes its cell and the placeholder blessed puts after it; a
 * combining one joins the character before it. A cell is written, and the row marked dirty, only
 * where it changed. `styles`, if given, has a code per character of `text`: the character's
 * attribute is `styleAttrs[code]` (code 0 is `attr`).
 */
export function writeRow(line: Row, xi: number, xl: number, text: string, attr: number, fill: number, styles?: string, styleAttrs?: readonly number[]): void {
  let x = xi;
  const styled = styles !== undefined && styleAttrs !== undefined;
  if (PLAIN_ROW.test(text)) {
    for (let i = 0; i < text.length && x < xl; i++) putCell(line, x++, styled ? styleAt(styles, styleAttrs, i, attr) : attr, text[i]!);
  } else {
    // blessed's parseContent marks the cell after each wide character with \x03 (sanitized text
    // has none of its own), so `source` counts the characters of `text` to find their styles.
    const content = text.replace(unicode.chars.all, "$1\x03");
    let i = 0;
    let source = 0;
    const next = () => {
      const point = content.codePointAt(i)!;
      const ch = point > 0xffff ? content.slice(i, i + 2) : content[i]!;
      i += ch.length;
      return { ch, combining: unicode.combining[point] === true };
    };
    while (i < content.length && x < xl) {
      const at = source;
      let { ch, combining } = next();
      if (ch !== "\x03") source += ch.length;
      if (combining) continue; // nothing on this row to join
      while (i < content.length) {
        const after = i;
        const mark = next();
        if (!mark.combining) {
          i = after;
          break;
        }
        source += mark.ch.length;
        ch += mark.ch;
      }
      const from = ch === "\x03" ? at - 1 : at;
      putCell(line, x++, styled ? styleAt(styles, styleAttrs, from, attr) : attr, ch);
    }
  }
  while (x < xl) putCell(line, x++, fill, " ");
}

/** Cell `x` of `line` made `attr` and `ch`, and the row marked dirty, where that is a change. */
function putCell(line: Row, x: number, attr: number, ch: string): void {
  const cell = line[x];
  if (!cell || (cell[0] === attr && cell[1] === ch)) return;
  cell[0] = attr;
  cell[1] = ch;
  line.dirty = true;
}

/** The attribute of character `index` of a styled row: its style code's, else the row's own. */
function styleAt(styles: string, styleAttrs: readonly number[], index: number, attr: number): number {
  return styleAttrs[styles.charCodeAt(index)] ?? attr;
}

// Per cell, every frame (belowTopTier says why).
belowTopTier(writeRow, putCell, styleAt, rewriteShortRuns, unchanged, plainAscii);
