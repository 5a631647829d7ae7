import { callsFromJson, occurrences, type Found, type OfferedTools } from "./shared.ts";

const TAG = "<|python_tag|>";

/**
 * `python_tag`: Llama 3.1's `<|python_tag|>` before a JSON call (`"parameters"` or
 * `"arguments"`). Its built-in tools' `brave_search.call(query=…)` is Python, not JSON, and names
 * no offered tool: it stays text.
 */
export function parsePythonTag(text: string, tools: OfferedTools): Found | null {
  for (const start of occurrences(text, TAG)) {
    const calls = callsFromJson(text.slice(start + TAG.length), tools);
    if (calls) return { start, calls };
  }
  return null;
}
