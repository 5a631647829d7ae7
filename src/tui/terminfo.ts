/**
 * Terminfo for blessed, inside a `bun build --compile` binary and on today's systems:
 *
 * 3. blessed's fallback terminfo lives at `__dirname/../usr`, and `__dirname` is frozen at build
 *    time. We embed blessed's own `usr/xterm-256color` in the binary instead.
 * 4. Debian 12's xterm-256color, screen-256color and tmux-256color entries use the newer
 *    ncurses format (magic 0x021e, 32-bit numbers) that blessed misparses; for screen-256color
 *    it also prints generated code to stderr. We accept only the legacy format (magic 0x011a)
 *    from the system database and otherwise use the embedded entry.
 *
 * Loaded by blessed.ts, so Tput is fixed before any screen is made. Also: whether this terminal
 * can run the TUI at all (terminalProblem).
 */
import fs from "node:fs";
import path from "node:path";
// @ts-ignore -- a data file. Bun embeds it in the compiled binary and the default export is its
// path (under $bunfs inside the binary, the real file when run from source). No .d.ts covers it.
import embeddedTerminfoFile from "blessed/usr/xterm-256color" with { type: "file" };

/* A literal require (blessed.ts says why); no types of its own. */
const Tput = require("blessed/lib/tput");


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
