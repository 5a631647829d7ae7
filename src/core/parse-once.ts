import type { z } from "zod";

/**
 * The parse options for a schema parsed once or a few times per process: a default, a config or
 * lock file. zod otherwise compiles each object schema's fast path with `new Function` on its
 * first parse, which costs more than such a parse; at a TUI start the four defaults parsed at
 * import alone took 3-4 ms that way (scripts/bench-tui.ts, first frame). Parses that repeat (a
 * tool's arguments, a session's lines) keep the fast path.
 */
export const PARSE_ONCE: z.core.ParseContext<z.core.$ZodIssue> = { jitless: true };
