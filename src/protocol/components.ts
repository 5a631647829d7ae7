import { z } from "zod";
import { PARSE_ONCE } from "./zod-start.ts";

/**
 * The harness's components, each one switchable off by config so an ablation (`glassbox eval
 * --config no-X.json`) measures what it is worth. All on by default.
 */
export const ComponentsSchema = z
  .object({
    /** Old tool results elided and the middle summarized as the window fills (`context`). */
    context_management: z.boolean().default(true),
    /** The same-call, edit-churn and no-progress notes (`stall`). */
    stall_rules: z.boolean().default(true),
    /** `finish` refused until the `verify` check passed after the last edit. */
    verification_gate: z.boolean().default(true),
    /** The `update_todo` tool and the plan carried through summaries and `--resume`. */
    plan_state: z.boolean().default(true),
    /** `edit_file` refuses an edit that would leave the file unparseable. */
    guarded_edits: z.boolean().default(true),
    /** `edit_file` takes an `old` that differs from the file only in whitespace (false: exact matches only). */
    loose_edits: z.boolean().default(true),
    /** Each tool result clipped to `max_result_chars`. */
    observation_caps: z.boolean().default(true),
    /** The map's tools: `repo_map`, `find_symbol`, `find_references` (false: none of the three). */
    repo_map: z.boolean().default(true),
    /** `find_symbol` and `find_references`, beside `repo_map`. */
    symbol_tools: z.boolean().default(true),
    /** The `explore` tool: a sub-run with a fresh context and read-only tools, whose answer alone comes back. */
    explore: z.boolean().default(true),
  })
  .strict();

export type Components = z.infer<typeof ComponentsSchema>;

export const DEFAULT_COMPONENTS: Components = ComponentsSchema.parse({}, PARSE_ONCE);
