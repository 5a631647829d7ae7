import { z } from "zod";
import { Refusal, defineTool } from "./tool.ts";

export const EXPLORE = "explore";

/**
 * What a sub-run is offered, in this order: reading, the tree tools, the map and symbol
 * look-ups, commands (only as rules allow, and then read-only), and `finish` to give its answer.
 * Nothing that edits, no plan, no MCP server's tools (nobody can say they only read), no explore
 * (sub-runs do not nest). The first is not the parent's first tool: the two prompts part right
 * after the system prompt, which is what lets llama-server keep the parent's (sub-run.ts).
 */
export const SUB_RUN_TOOLS: readonly string[] = ["read_file", "search_text", "find_files", "list_files", "repo_map", "find_symbol", "find_references", "run_command", "finish"];

/**
 * `explore(question)`: a sub-run with a fresh context and the read-only tools answers the
 * question; its answer alone is the result, so what it read to find it never enters the
 * caller's context. The run that offers it supplies the sub-run (ToolContext.explore).
 */
export const explore = defineTool({
  name: EXPLORE,
  description:
    "Have a helper with read-only tools find something out in the code (where a value is computed, what calls a function); only its answer comes back, not what it read. Ask one precise question.",
  schema: z.object({ question: z.string().min(1).max(4000).describe("What to find out") }).strict(),
  needsApproval: false,
  async plan({ question }, { explore }) {
    if (!explore) throw new Refusal("explore is not available here (a sub-run cannot start another); search and read with the other tools.");
    return { execute: () => explore(question) };
  },
});
