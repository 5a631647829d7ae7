import { callsFromJson, type Found, type OfferedTools } from "./shared.ts";
import type { TextCall } from "../../protocol/model.ts";

const MARK = "[TOOL_CALLS]";
/** Mistral 3 and Devstral: `NAME[ARGS]{…}`, some versions with `[CALL_ID]ID` between. */
const NAMED = /^([A-Za-z0-9_.-]+)(?:\[CALL_ID\][A-Za-z0-9_-]*)?\[ARGS\]([\s\S]*)$/;

/**
 * `mistral`: `[TOOL_CALLS]` followed by a JSON list (Mistral 7B v0.3, Nemo, Small 2409) or by
 * `NAME[ARGS]{…}` (Mistral 3, Magistral, Devstral), the marker repeated before each call.
 */
export function parseMistral(text: string, tools: OfferedTools): Found | null {
  // Split once and read from the end: the calls run from the first marker after which every
  // segment is a call. Splitting again at each marker took seconds on a reply of repeated markers.
  const segments = text.split(MARK);
  const lastFirst: TextCall[][] = [];
  let first = segments.length;
  for (let index = segments.length - 1; index >= 1; index--) {
    const found = segmentCalls(segments[index]!, tools);
    if (!found) break;
    lastFirst.push(found);
    first = index;
  }
  if (first === segments.length) return null;
  const start = segments.slice(0, first).reduce((at, segment) => at + segment.length + MARK.length, 0) - MARK.length;
  return { start, calls: lastFirst.reverse().flat() };
}

function segmentCalls(raw: string, tools: OfferedTools): TextCall[] | null {
  const segment = raw.trim();
  return segment.startsWith("[") || segment.startsWith("{") ? callsFromJson(segment, tools) : namedCall(segment, tools);
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
