import { z } from "zod";
import { PARSE_ONCE } from "../protocol/zod-start.ts";

/** Caps on what a server may hand glassbox, as data with their defaults in one place. */
export const McpLimitsSchema = z
  .object({
    /** A tool's input schema larger than this (as JSON text) is not offered. */
    max_schema_bytes: z.number().int().positive().default(32 * 1024),
    /** Nesting deeper than this (objects and lists) in an input schema: the tool is not offered. */
    max_schema_depth: z.number().int().positive().default(16),
    /** Pages of tools/list followed per listing; a server that pages on forever is cut here. */
    max_list_pages: z.number().int().positive().default(20),
    /** Seconds a server gets to start and answer initialize and the first tools/list. */
    start_timeout_seconds: z.number().positive().default(20),
  })
  .strict();

export type McpLimits = z.infer<typeof McpLimitsSchema>;

export const MCP_LIMITS: McpLimits = McpLimitsSchema.parse({}, PARSE_ONCE);
