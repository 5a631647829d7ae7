// The map as the model reads it: a file's path on a line ending in `:`, then its definitions,
// indented, `LINE: SIGNATURE`; the most referred-to definitions that fit the token budget, each
// file's in line order, and a last line saying how much was left out.
import type { RankedDefinition } from "./rank.ts";

/** Tokens of a text, estimated as code tokenizes: about 3.5 characters each. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.5);
}

/** The map of the first `count` ranked definitions, files ordered by their best definition. */
function renderTop(ranked: RankedDefinition[], count: number): string {
  const byFile = new Map<string, RankedDefinition[]>();
  for (const definition of ranked.slice(0, count)) (byFile.get(definition.path) ?? byFile.set(definition.path, []).get(definition.path)!).push(definition);
  const lines: string[] = [];
  for (const [path, definitions] of byFile) {
    lines.push(`${path}:`);
    for (const definition of definitions.sort((a, b) => a.line - b.line)) lines.push(`  ${definition.line}: ${definition.signature}`);
  }
  return lines.join("\n");
}

/** As many of the ranked definitions as fit `tokens` (found by bisection), with the note of what was left out. */
export function renderMap(ranked: RankedDefinition[], tokens: number): string {
  if (!ranked.length) return "";
  const fits = (count: number): boolean => estimateTokens(renderTop(ranked, count)) + 30 <= tokens;
  let low = 0;
  let high = ranked.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  const shown = renderTop(ranked, low);
  const left = ranked.length - low;
  if (!left) return shown;
  const files = new Set(ranked.slice(low).map((definition) => definition.path)).size;
  const note = `[cut to ${tokens} tokens: ${left} more ${left === 1 ? "definition" : "definitions"} in ${files} ${files === 1 ? "file" : "files"} not shown; give a path or a focus]`;
  return shown ? `${shown}\n${note}` : note;
}
