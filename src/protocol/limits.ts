import { z } from "zod";

/** What each limit accepts. */
const LIMIT_FIELDS = {
  max_steps: z.number().int().min(1),
  max_tool_calls: z.number().int().min(0),
  max_calls_per_reply: z.number().int().min(1),
  max_repeat: z.number().int().min(1),
  deadline_seconds: z.number().positive(),
  max_result_chars: z.number().int().min(200),
  max_transcript_chars: z.number().int().min(1),
  max_tokens: z.number().int().min(0),
  max_sub_run_steps: z.number().int().min(1),
};

export type Limits = { [K in keyof typeof LIMIT_FIELDS]: number };
export type LimitName = keyof Limits;

/**
 * The fuller reference harness's budget, 40 steps in 900 seconds (CONTRACT.md "Default limits"):
 * room for real work on a local model. `max_transcript_chars` is only a safety cap; the context
 * manager works against the server's real window. The one place the defaults live.
 */
export const DEFAULT_LIMITS: Limits = {
  max_steps: 40,
  max_tool_calls: 100,
  max_calls_per_reply: 8,
  max_repeat: 2,
  deadline_seconds: 900,
  max_result_chars: 6000,
  max_transcript_chars: 200_000,
  max_tokens: 0,
  /** A sub-run's own replies (explore), under the budgets it shares with its parent. */
  max_sub_run_steps: 12,
};

export const LIMIT_NAMES = Object.keys(LIMIT_FIELDS) as LimitName[];

/** Some limits set, from a config file or the command line; the rest keep their defaults. */
export const LimitOverridesSchema = z
  .object(
    Object.fromEntries(LIMIT_NAMES.map((name) => [name, LIMIT_FIELDS[name].optional()])) as {
      [K in LimitName]: z.ZodOptional<(typeof LIMIT_FIELDS)[K]>;
    },
  )
  .strict();

export type LimitOverrides = z.infer<typeof LimitOverridesSchema>;

export function resolveLimits(...overrides: LimitOverrides[]): Limits {
  const limits = { ...DEFAULT_LIMITS };
  for (const set of overrides) {
    for (const name of LIMIT_NAMES) if (set[name] !== undefined) limits[name] = set[name];
  }
  return limits;
}
