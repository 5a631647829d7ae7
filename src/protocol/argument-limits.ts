import { z } from "zod";
import { argumentsText } from "./messages.ts";
import { PARSE_ONCE } from "./zod-start.ts";

/** What a tool's argument cap accepts: a tool that sets its own is held to it too. */
export const ArgumentCharsSchema = z.number().int().min(2);

/**
 * How deep and how large a model's arguments may be before anything walks them. Deeper nesting
 * serves no tool and overflows every recursive walk (JSON.stringify, a schema validator, a chat
 * template); a tool that takes whole files sets a larger cap of its own (Tool.maxArgumentChars).
 * The one place the defaults live.
 */
export const ARGUMENT_LIMITS = z
  .object({ max_depth: z.number().int().min(1).max(1_000), max_chars: ArgumentCharsSchema })
  .parse({ max_depth: 64, max_chars: 1_000_000 }, PARSE_ONCE);

/**
 * Why a call's arguments are refused before anything walks them, as the sentence the model gets,
 * or null when they are within the limits: nested deeper than the limit, or longer as text than
 * `maxChars` (the tool's cap).
 */
export function argumentsRefusal(tool: string, args: unknown, maxChars: number): string | null {
  const depth = ARGUMENT_LIMITS.max_depth;
  if (nestedDeeperThan(args, depth)) return `The arguments of ${tool} are nested deeper than ${depth} levels, the most allowed; send a flat JSON object.`;
  if (argumentsText(args).length > maxChars) return `The arguments of ${tool} are larger than ${maxChars} characters, this tool's cap; send less in one call.`;
  return null;
}

/** Whether arguments (JSON text, or a value) nest deeper than `limit` arrays and objects; found without recursion. */
export function nestedDeeperThan(args: unknown, limit: number): boolean {
  return typeof args === "string" ? textNestedDeeperThan(args, limit) : valueNestedDeeperThan(args, limit);
}

/**
 * Counts the brackets of a JSON text, skipping what is inside strings, in one pass: the text is
 * never parsed, so its depth is known before anything builds or walks the value.
 */
export function textNestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === BACKSLASH) at++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) depth--;
  }
  return false;
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

/** A value's nesting, walked with a stack of its own; it stops at the first container past the limit. */
export function valueNestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}
