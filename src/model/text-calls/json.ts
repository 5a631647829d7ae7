import { atLineStart, callsFromValue, type Found, type OfferedTools } from "./shared.ts";

/**
 * `json`: a bare JSON object or list of calls ending the text, starting on a line of its own
 * (qwen2.5-coder, Llama 3.2). A JSON value that begins inside a line of prose is left alone: it
 * is far more often an example than a call.
 */
export function parseJson(text: string, tools: OfferedTools): Found | null {
  const end = text.trimEnd().length - 1;
  if (text[end] !== "}" && text[end] !== "]") return null;
  // The only JSON that can end the text opens where its last bracket is matched: one parse, where
  // trying every line that starts with a bracket took 27 s on 80 KB of "[" lines.
  const start = openingOf(text, end);
  if (start === null || !atLineStart(text, start)) return null;
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start));
  } catch {
    return null;
  }
  // The longest JSON ending the text decides: a call nested inside other data is data.
  const calls = callsFromValue(value, tools);
  return calls ? { start, calls } : null;
}

/**
 * Where the bracket at `close` opens, read backwards in one pass: an unescaped quote starts or
 * ends a string, brackets inside strings do not count. null when it never opens.
 */
function openingOf(text: string, close: number): number | null {
  let depth = 0;
  let inString = false;
  for (let at = close; at >= 0; at--) {
    const char = text[at];
    if (char === '"' && !escaped(text, at)) inString = !inString;
    else if (inString) continue;
    else if (char === "]" || char === "}") depth++;
    else if ((char === "[" || char === "{") && --depth === 0) return at;
  }
  return null;
}

/** Whether the quote at `at` follows an odd run of backslashes. */
function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === 92) backslashes++;
  return backslashes % 2 === 1;
}
