import { atLineStart, occurrences, skipSpace, type Found, type OfferedTools } from "./shared.ts";
import type { TextCall } from "../../protocol/model.ts";

/** Sticky: matched where `lastIndex` is, without copying the rest of the text for each function. */
const FUNCTION = /<function=([^>\s]+)>/y;
const FUNCTION_END = "</function>";
const PARAMETER = /<parameter=([^>\n]+)>/;
const PARAMETER_END = "</parameter>";

/**
 * `function_xml`: `<function=NAME>` and `<parameter=KEY>VALUE` (qwen3-coder), closing tags
 * optional, several functions in a row, the first on a line of its own. Values are text; a
 * parameter the tool declares as a number, boolean, object or list is read as JSON when it is
 * valid JSON. Without closing tags a value runs to the end, so a `<function=` inside a line of
 * prose is left alone: the rest of the sentence would become the value.
 */
export function parseFunctionXml(text: string, tools: OfferedTools): Found | null {
  // Every `<function=` after a start is on the chain read from it, so a chain that fails at
  // `failedAt` fails there from each later start up to it too: those are not read again (a reply
  // of 2,000 repeated `<function=` lines took a minute when each was).
  let failedAt = -1;
  for (const start of occurrences(text, "<function=")) {
    if (start <= failedAt || !atLineStart(text, start)) continue;
    const calls = functionsFrom(text, start, tools);
    if (typeof calls !== "number") return { start, calls };
    failedAt = calls;
  }
  return null;
}

/** The chain of functions from `start` to the end of the text, or where it stops being one. */
function functionsFrom(text: string, start: number, tools: OfferedTools): TextCall[] | number {
  const calls: TextCall[] = [];
  for (let at = start; (at = skipSpace(text, at)) < text.length; ) {
    FUNCTION.lastIndex = at;
    const open = FUNCTION.exec(text);
    if (!open || !tools.offers(open[1]!)) return at;
    const name = open[1]!;
    const bodyStart = at + open[0].length;
    const ends = [text.indexOf(FUNCTION_END, bodyStart), text.indexOf("<function=", bodyStart)].filter((index) => index >= 0);
    const bodyEnd = ends.length ? Math.min(...ends) : text.length;
    const args = parameters(text.slice(bodyStart, bodyEnd), name, tools);
    if (!args) return at;
    calls.push({ name, arguments: args });
    at = text.startsWith(FUNCTION_END, bodyEnd) ? bodyEnd + FUNCTION_END.length : bodyEnd;
  }
  return calls.length ? calls : start;
}

/** The `<parameter=KEY>VALUE` pairs of one function's body; null when anything else is in it. */
function parameters(body: string, tool: string, tools: OfferedTools): Record<string, unknown> | null {
  const [before, ...pairs] = body.split(PARAMETER);
  if (before!.trim()) return null;
  const args: Record<string, unknown> = {};
  for (let i = 0; i < pairs.length; i += 2) {
    const key = pairs[i]!.trim();
    let raw = pairs[i + 1]!;
    const close = raw.lastIndexOf(PARAMETER_END);
    if (close >= 0) {
      if (raw.slice(close + PARAMETER_END.length).trim()) return null;
      raw = raw.slice(0, close);
    }
    args[key] = typed(parameterText(raw), tools.parameterType(tool, key));
  }
  return args;
}

/** A value on one line is trimmed; a multi-line value loses only its first and last newline. */
export function parameterText(raw: string): string {
  if (!raw.trim().includes("\n")) return raw.trim();
  return raw.replace(/^[ \t]*\r?\n/, "").replace(/\r?\n[ \t]*$/, "");
}

function typed(value: string, type: unknown): unknown {
  if (type === undefined || type === "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
