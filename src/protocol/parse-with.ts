import type { z } from "zod";
import { PARSE_ONCE } from "./zod-start.ts";
import { UsageError } from "./usage-error.ts";

/**
 * Keys an earlier release accepted, with what took their place: a config written for 0.2 is
 * told what to change, not only that a key is unknown.
 */
const RETIRED_KEYS: Record<string, string> = {
  "context.hard_ratio": "a compaction now takes the view under context.target_ratio",
  "context.keep_recent": "the newest results stay whole up to context.whole_share of the window, at least context.min_whole of them",
  "context.first_cap": "an elided result is cut once, to context.elided_chars",
  "context.min_cap": "an elided result is cut once, to context.elided_chars",
};

/**
 * Parses with a zod schema, turning the first problem into a message naming the key.
 * `whatParsed` names what was parsed; a function is asked only when there is a problem (naming it may cost work).
 */
export function parseWith<T>(schema: z.ZodType<T>, raw: unknown, whatParsed: string | (() => string)): T {
  const parsed = schema.safeParse(raw, PARSE_ONCE);
  if (parsed.success) return parsed.data;
  const what = typeof whatParsed === "string" ? whatParsed : whatParsed();
  const issue = parsed.error.issues[0]!;
  const at = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((key) => (at ? `${at}.${key}` : key));
    const retired = keys.find((key) => Object.hasOwn(RETIRED_KEYS, key));
    if (retired) throw new UsageError(`${what}: "${retired}" was retired in 0.3 (${RETIRED_KEYS[retired]}); remove it`);
    throw new UsageError(`${what}: unknown key ${keys.map((key) => `"${key}"`).join(", ")}; remove it or check its spelling`);
  }
  throw new UsageError(`${what}: ${at ? `"${at}" ` : ""}${issue.message}`);
}
