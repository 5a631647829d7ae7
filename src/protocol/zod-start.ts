import { z } from "zod";

/**
 * What keeps zod's costs out of a start. Start-up code runs in the interpreter (scripts/build.ts,
 * jitPolicy), where zod's one-time work is dear: measured in a compiled probe, the modules a TUI
 * start loads took ~11 ms to evaluate, most of it building schemas and compiling parsers.
 */

/**
 * The parse options for a schema parsed once or a few times per process: a default, a config or
 * lock file. zod otherwise compiles each object schema's fast path with `new Function` on its first
 * parse, which costs more than such a parse: the four defaults parsed at import alone took 3-4 ms
 * that way. Parses that repeat (a tool's arguments, a session's lines) keep the fast path.
 */
export const PARSE_ONCE: z.core.ParseContext<z.core.$ZodIssue> = { jitless: true };

/**
 * A schema built on its first parse instead of at import: for files a given start may never read
 * (a saved session's lines, the undo journal, a scripted model). Building those at import took
 * ~2.5 ms of the TUI's first frame.
 */
export function builtOnFirstParse<T extends z.ZodType>(build: () => T): z.ZodLazy<T> {
  return z.lazy(build);
}
