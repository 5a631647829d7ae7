import { offeredName } from "../../protocol/tool-names.ts";
import type { TextCall, ToolDeclaration } from "../../protocol/model.ts";

/** Calls that run from `start` to the end of the text. */
export interface Found {
  start: number;
  calls: TextCall[];
}

/** One form's parser: the calls the text ends with, or null. Pure: text in, calls or nothing out. */
export type Parser = (text: string, tools: OfferedTools) => Found | null;

/** The tools a request offered: which names a call may use, and each parameter's declared type. */
export class OfferedTools {
  private readonly names: string[];

  constructor(private readonly declarations: readonly ToolDeclaration[]) {
    this.names = declarations.map((tool) => tool.name);
  }

  offers(name: string): boolean {
    return offeredName(name, this.names) !== null;
  }

  /** The JSON Schema `type` of a tool's parameter, when the declaration gives one. */
  parameterType(tool: string, key: string): unknown {
    const name = offeredName(tool, this.names);
    const properties = this.declarations.find((declaration) => declaration.name === name)?.parameters.properties;
    if (!properties || typeof properties !== "object") return undefined;
    const property = (properties as Record<string, unknown>)[key];
    return property && typeof property === "object" ? (property as { type?: unknown }).type : undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

const CALL_KEYS = new Set(["name", "arguments", "parameters", "id", "type"]);
const OPENAI_KEYS = new Set(["function", "type", "id"]);

/**
 * One call from a JSON object: `{"name", "arguments" | "parameters", "id"?, "type"?}` or the
 * OpenAI shape `{"type": "function", "function": {…}}`. Any other key means the object is data,
 * not a call (`{"name": "Alice", "age": 3}`).
 */
function callFromObject(item: unknown): TextCall | null {
  if (!isObject(item)) return null;
  const keys = Object.keys(item);
  if (item.type !== undefined && item.type !== "function") return null;
  if ("function" in item) return keys.every((key) => OPENAI_KEYS.has(key)) ? callFromObject(item.function) : null;
  if (!keys.every((key) => CALL_KEYS.has(key))) return null;
  if (typeof item.name !== "string" || !item.name) return null;
  if ("arguments" in item && "parameters" in item) return null;
  const args = "arguments" in item ? item.arguments : item.parameters;
  if (args === undefined) return { name: item.name, arguments: {} };
  return typeof args === "string" || isObject(args) ? { name: item.name, arguments: args } : null;
}

/** The calls a parsed JSON value holds: one call, or a list of them, every one naming an offered tool. */
export function callsFromValue(value: unknown, tools: OfferedTools): TextCall[] | null {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) return null;
  const calls: TextCall[] = [];
  for (const item of items) {
    const call = callFromObject(item);
    if (!call || !tools.offers(call.name)) return null;
    calls.push(call);
  }
  return calls;
}

/** The calls in a JSON text, or null when it is not JSON or not calls. */
export function callsFromJson(text: string, tools: OfferedTools): TextCall[] | null {
  try {
    return callsFromValue(JSON.parse(text), tools);
  } catch {
    return null;
  }
}

/** Each index in `text` where `marker` occurs, first to last. */
export function occurrences(text: string, marker: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + 1)) found.push(at);
  return found;
}

/** Whether only spaces or tabs stand between the start of its line and `at`. */
export function atLineStart(text: string, at: number): boolean {
  while (at > 0 && (text[at - 1] === " " || text[at - 1] === "\t")) at--;
  return at === 0 || text[at - 1] === "\n";
}

/** The first index at or after `at` that is not whitespace. */
export function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at]!)) at++;
  return at;
}
