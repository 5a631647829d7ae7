import { z } from "zod";
import { defineTool } from "./tool.ts";

export const currentTime = defineTool({
  name: "current_time",
  description: "The current date and time (UTC, ISO 8601).",
  schema: z.object({}).strict(),
  needsApproval: false,
  async plan(_args, { clock }) {
    return { execute: async () => new Date(clock.now()).toISOString() };
  },
});
