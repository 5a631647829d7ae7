import type { Found, OfferedTools, Parser } from "./shared.ts";

/** An opening fence line: ```json or ```tool_call. */
const OPEN = /^[ \t]*```[ \t]*(?:json|tool_call)[ \t]*\r?\n/gim;
const CLOSE = /(?:^|\n)[ \t]*```$/;

/**
 * `fenced`: a ```json or ```tool_call block ending the text, holding nothing but calls in one of
 * the other forms (`inner` reads them).
 */
export function parseFenced(text: string, tools: OfferedTools, inner: Parser): Found | null {
  const close = CLOSE.exec(text);
  if (!close) return null;
  let open: RegExpExecArray | null = null;
  OPEN.lastIndex = 0;
  for (let match = OPEN.exec(text); match && match.index < close.index; match = OPEN.exec(text)) open = match;
  if (!open) return null;
  const body = text.slice(open.index + open[0].length, close.index);
  // Another fence between the two would mean they do not belong together.
  if (body.includes("```")) return null;
  const found = inner(body.trim(), tools);
  return found?.start === 0 ? { start: open.index, calls: found.calls } : null;
}
