import type { Entry } from "./parse.ts";

/** How many entries there are of each level. */
export function countByLevel(entries: Entry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of entries) counts[entry.level] = (counts[entry.level] ?? 0) + 1;
  return counts;
}
