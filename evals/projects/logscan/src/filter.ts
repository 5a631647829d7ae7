import type { Entry } from "./parse.ts";

/** The entries at ERROR level, in order. */
export function errors(entries: Entry[]): Entry[] {
  return entries.filter((entry) => entry.level === "ERROR");
}

/** The entries at or after `from` (ISO times compare as text). */
export function since(entries: Entry[], from: string): Entry[] {
  return entries.filter((entry) => entry.time >= from);
}
