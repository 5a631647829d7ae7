import { parseFunctionXml } from "./function-xml.ts";
import { callsFromJson, occurrences, skipSpace, type Found, type OfferedTools } from "./shared.ts";
import type { TextCall } from "../../protocol/model.ts";

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";

/**
 * `tool_call`: `<tool_call>…</tool_call>` blocks, one or several in a row (Hermes, Qwen2.5,
 * Qwen3). A block holds JSON (one call or a list) or qwen3-coder's `<function=…>`; the last one
 * may be left open, as a server that stops at the closing tag leaves it.
 */
export function parseToolCall(text: string, tools: OfferedTools): Found | null {
  for (const start of occurrences(text, OPEN)) {
    const calls = blocksFrom(text, start, tools);
    if (calls) return { start, calls };
  }
  return null;
}

function blocksFrom(text: string, start: number, tools: OfferedTools): TextCall[] | null {
  const calls: TextCall[] = [];
  for (let at = start; (at = skipSpace(text, at)) < text.length; ) {
    if (!text.startsWith(OPEN, at)) return null;
    const close = text.indexOf(CLOSE, at + OPEN.length);
    const found = blockCalls(text.slice(at + OPEN.length, close < 0 ? text.length : close).trim(), tools);
    if (!found) return null;
    calls.push(...found);
    if (close < 0) break;
    at = close + CLOSE.length;
  }
  return calls.length ? calls : null;
}

function blockCalls(body: string, tools: OfferedTools): TextCall[] | null {
  if (!body.startsWith("<function=")) return callsFromJson(body, tools);
  const found = parseFunctionXml(body, tools);
  return found?.start === 0 ? found.calls : null;
}
