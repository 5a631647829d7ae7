import { z } from "zod";
import { PARSE_ONCE } from "../protocol/zod-start.ts";

/**
 * The agent-discipline thresholds as data: context management, stall rules, budget warnings.
 * The one place their defaults live; the config file may set any of them.
 */
export const ContextPolicySchema = z
  .object({
    /** The view is compacted once it reaches this share of the window; until then it only grows at its end. */
    soft_ratio: z.number().gt(0).lt(1).default(0.8),
    /**
     * A compaction takes the view under this share, so the next one is many steps away: old
     * results are elided in one batch, and the middle summarized too when eliding cannot get there.
     */
    target_ratio: z.number().gt(0).lt(1).default(0.6),
    /** The newest tool results stay whole while they fit in this share of the window. */
    whole_share: z.number().gt(0).lt(1).default(0.15),
    /** ...and at least this many of them, whatever their size, so every result reaches the model whole once. */
    min_whole: z.number().int().min(1).default(1),
    /** The length an elided result is cut to, head and tail kept; it keeps that form from then on. */
    elided_chars: z.number().int().min(1).default(200),
    /** The newest assistant turns (with their tool results) a summary never replaces. */
    keep_turns: z.number().int().min(1).default(2),
  })
  .strict();

export const StallRulesSchema = z
  .object({
    /** Successful edits to one file before the model is told to stop patching. */
    edits_per_file: z.number().int().min(1).default(5),
    /** Reads and searches in a row without an edit before the model is told to decide. */
    reads_without_edit: z.number().int().min(1).default(8),
  })
  .strict();

export const BudgetWarningSchema = z
  .object({
    /** Share of the deadline and of the token budget at which the model is told to wrap up. */
    ratio: z.number().gt(0).lt(1).default(0.75),
  })
  .strict();

export type ContextPolicy = z.infer<typeof ContextPolicySchema>;
export type StallRules = z.infer<typeof StallRulesSchema>;
export type BudgetWarning = z.infer<typeof BudgetWarningSchema>;

export const DEFAULT_CONTEXT_POLICY: ContextPolicy = ContextPolicySchema.parse({}, PARSE_ONCE);
/**
 * Compaction in fewer, larger steps, for a server that reprocesses the whole prompt after any
 * change earlier in the conversation (sliding-window layers without --swa-full, recurrent or hybrid
 * layers): later, and down to a lower share, so each compaction buys more steps before the next.
 */
export const BATCHED_CONTEXT_POLICY: ContextPolicy = ContextPolicySchema.parse({ soft_ratio: 0.85, target_ratio: 0.4 }, PARSE_ONCE);
export const DEFAULT_STALL_RULES: StallRules = StallRulesSchema.parse({}, PARSE_ONCE);
export const DEFAULT_BUDGET_WARNING: BudgetWarning = BudgetWarningSchema.parse({}, PARSE_ONCE);
