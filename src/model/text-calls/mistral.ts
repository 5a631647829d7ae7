import { callsFromJson, occurrences, type Found, type OfferedTools } from "./shared.ts";
import type { TextCall } from "../types.ts";

const MARK = "[TOOL_CALLS]";
/** Mistral 3 and Devstral: `NAME[ARGS]{…}`, some versions with `[CALL_ID]ID` between. */
const NAMED = /^([A-Za-z0-9_.-]+)(?:\[CALL_ID\][A-Za-z0-9_-]*)?\[ARGS\]([\s\S]*)$/;

/**
 * `mistral`: `[TOOL_CALLS]` followed by a JSON list (Mistral 7B v0.3, Nemo, Small 2409) or by
 * `NAME[ARGS]{…}` (Mistral 3, Magistral, Devstral), the marker repeated before each call.
 */
export function parseMistral(text: string, tools: OfferedTools): Found | null {
  for (const start of occurrences(text, MARK)) {
    const calls = segmentsFrom(text.slice(start + MARK.length).split(MARK), tools);
    if (calls) return { start, calls };
  }
  return null;
}

function segmentsFrom(segments: string[], tools: OfferedTools): TextCall[] | null {
  const calls: TextCall[] = [];
  for (const raw of segments) {
    const segment = raw.trim();
    const found = segment.startsWith("[") || segment.startsWith("{") ? callsFromJson(segment, tools) : namedCall(segment, tools);
    if (!found) return null;
    calls.push(...found);
  }
  return calls.length ? calls : null;
}

function namedCall(segment: string, tools: OfferedTools): TextCall[] | null {
  const match = NAMED.exec(segment);
  if (!match || !tools.offers(match[1]!)) return null;
  try {
    const args: unknown = JSON.parse(match[2]!);
    return args !== null && typeof args === "object" && !Array.isArray(args) ? [{ name: match[1]!, arguments: args }] : null;
  } catch {
    return null;
  }
}
