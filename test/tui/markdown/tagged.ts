import { escapeTags } from "../../../src/tui/sanitize.ts";
import { styleTags, type StyledLine } from "../../../src/tui/markdown/style.ts";

/** A styled line as blessed tagged content: each styled run opened by its tags and closed by `{/}`. */
export function tagged(line: { text: string; styles?: string }): string {
  let out = "";
  let start = 0;
  const styles = line.styles ?? "";
  for (let i = 1; i <= line.text.length; i++) {
    if (i < line.text.length && styles.charCodeAt(i) === styles.charCodeAt(start)) continue;
    const code = styles.charCodeAt(start) || 0;
    const text = escapeTags(line.text.slice(start, i));
    out += code ? `${styleTags(code)}${text}{/}` : text;
    start = i;
  }
  return out;
}

export const taggedLines = (lines: StyledLine[]) => lines.map(tagged);
