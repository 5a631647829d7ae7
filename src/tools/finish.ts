import { z } from "zod";
import { defineTool } from "./tool.ts";

export const FINISH = "finish";

export const finish = defineTool({
  name: FINISH,
  description: "End the task. `summary` is your final answer to the user: what you found or changed, and how you checked it.",
  schema: z.object({ summary: z.string().min(1).max(20_000).describe("Your final answer") }).strict(),
  needsApproval: false,
  async plan() {
    return { execute: async () => "Finished." };
  },
});
