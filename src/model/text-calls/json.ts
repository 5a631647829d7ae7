import { callsFromValue, type Found, type OfferedTools } from "./shared.ts";

/**
 * `json`: a bare JSON object or list of calls ending the text, starting on a line of its own
 * (qwen2.5-coder, Llama 3.2). A JSON value that begins inside a line of prose is left alone: it
 * is far more often an example than a call.
 */
export function parseJson(text: string, tools: OfferedTools): Found | null {
  const last = text.trimEnd().at(-1);
  if (last !== "}" && last !== "]") return null;
  for (const start of lineStarts(text)) {
    let value: unknown;
    try {
      value = JSON.parse(text.slice(start));
    } catch {
      continue;
    }
    // The longest JSON ending the text decides: a call nested inside other data is data.
    const calls = callsFromValue(value, tools);
    return calls ? { start, calls } : null;
  }
  return null;
}

/** Where each line's first non-blank character is `{` or `[`. */
function lineStarts(text: string): number[] {
  const starts: number[] = [];
  const line = /^[ \t]*([{[])/gm;
  for (let match = line.exec(text); match; match = line.exec(text)) starts.push(match.index + match[0].length - 1);
  return starts;
}
