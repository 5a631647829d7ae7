/**
 * Characters a reader does not see but a model reads: zero-width ones, bidirectional controls
 * (which reorder what is shown) and Unicode tag characters (which spell invisible ASCII). Tool
 * descriptions carrying them are the classic "tool poisoning"; they are shown and flagged.
 */
const HIDDEN = /[\u200b-\u200f\u2060-\u2064\ufeff\u061c\u202a-\u202e\u2066-\u2069\u{e0000}-\u{e007f}]/gu;

export type HiddenKind = "zero-width" | "bidi" | "tag";

function kindOf(char: string): HiddenKind {
  const code = char.codePointAt(0)!;
  if (code >= 0xe0000) return "tag";
  if (code === 0x200e || code === 0x200f || code === 0x061c || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)) return "bidi";
  return "zero-width";
}

/** How many hidden characters of each kind the text holds; empty when none. */
export function hiddenCharacters(text: string): Partial<Record<HiddenKind, number>> {
  const found: Partial<Record<HiddenKind, number>> = {};
  for (const match of text.matchAll(HIDDEN)) {
    const kind = kindOf(match[0]);
    found[kind] = (found[kind] ?? 0) + 1;
  }
  return found;
}

/** "3 hidden characters (zero-width 1, tag 2)", or null when there are none. */
export function describeHidden(text: string): string | null {
  const found = Object.entries(hiddenCharacters(text));
  if (!found.length) return null;
  const total = found.reduce((sum, [, count]) => sum + count, 0);
  return `${total} hidden character${total === 1 ? "" : "s"} (${found.map(([kind, count]) => `${kind} ${count}`).join(", ")})`;
}

/** The text with every hidden character written out as <U+XXXX>, so a person sees it. */
export function showHidden(text: string): string {
  return text.replace(HIDDEN, (char) => `<U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}>`);
}
