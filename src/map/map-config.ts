// The map's settings in glassbox.json (`repo_map`), with their defaults here and nowhere else.
import { z } from "zod";
import { PARSE_ONCE } from "../protocol/zod-start.ts";

export const RepoMapConfigSchema = z
  .object({
    /** The map's budget in tokens; absent: from the window (MAP_WINDOW_SHARE of it, at most MAX_DEFAULT_MAP_TOKENS). */
    tokens: z.number().int().min(64).max(65536).optional(),
    /** The map also goes into the prompt as a layer (`map`), built once per run. */
    layer: z.boolean().default(false),
  })
  .strict();

export type RepoMapConfig = z.infer<typeof RepoMapConfigSchema>;

export const DEFAULT_REPO_MAP_CONFIG: RepoMapConfig = RepoMapConfigSchema.parse({}, PARSE_ONCE);

/** 1k tokens of map at an 8k window, 4k at 32k and above. */
export const MAP_WINDOW_SHARE = 1 / 8;
export const MAX_DEFAULT_MAP_TOKENS = 4096;

/** The map's budget: the configured one, or the window's share. */
export function mapTokens(config: RepoMapConfig, window: number): number {
  return config.tokens ?? Math.min(MAX_DEFAULT_MAP_TOKENS, Math.floor(window * MAP_WINDOW_SHARE));
}
