import { z } from "zod";
import { PARSE_ONCE } from "./zod-start.ts";

/**
 * The agent-discipline thresholds as data: context management, stall rules, budget warnings.
 * The one place their defaults live; the config file may set any of them.
 */
export const ContextPolicySchema = z
  .object({
    /** Elide old tool results once the view reaches this share of the window. */
    soft_ratio: z.number().gt(0).lt(1).default(0.6),
    /** Summarize the middle of the conversation once the view reaches this share. */
    hard_ratio: z.number().gt(0).max(1).default(0.85),
    /** The newest tool results that always stay whole. */
    keep_recent: z.number().int().min(0).default(4),
    /** The cap on the first result past the newest ones; it halves each time the age doubles. */
    first_cap: z.number().int().min(1).default(2000),
    min_cap: z.number().int().min(1).default(120),
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
export const DEFAULT_STALL_RULES: StallRules = StallRulesSchema.parse({}, PARSE_ONCE);
export const DEFAULT_BUDGET_WARNING: BudgetWarning = BudgetWarningSchema.parse({}, PARSE_ONCE);
