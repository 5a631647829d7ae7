import { z } from "zod";
import type { Tool } from "../tools/tool.ts";
import { Refusal } from "../tools/tool.ts";

/**
 * Validates a model's raw arguments against the tool's strict zod schema. A JSON string holding
 * an object is accepted (that is how wire protocols carry arguments); anything else that is not
 * an object is refused. The refusal names the argument at fault.
 */
export function validateArguments<Args>(tool: Tool<Args>, raw: unknown): Args {
  let value = raw;
  if (typeof raw === "string") {
    const text = raw.trim() === "" ? "{}" : raw;
    try {
      value = JSON.parse(text);
    } catch {
      throw new Refusal(`The arguments for ${tool.name} are not valid JSON; send a JSON object.`);
    }
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Refusal(`The arguments for ${tool.name} must be a JSON object, not ${describe(value)}.`);
  }
  if (tool.external) return tool.external.validate(value as Record<string, unknown>);
  const parsed = tool.schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new Refusal(sentenceFor(tool, value as Record<string, unknown>, parsed.error.issues[0]!));
}

function sentenceFor(tool: Tool, args: Record<string, unknown>, issue: z.core.$ZodIssue): string {
  const name = issue.path.length ? issue.path.map(String).join(".") : "";
  const arg = `Argument \`${name}\` of ${tool.name}`;
  const known = Object.keys(shapeOf(tool)).join(", ") || "no arguments";
  if (issue.code === "unrecognized_keys") {
    if (name) return `Unexpected key \`${issue.keys.join("`, `")}\` in argument \`${name}\` of ${tool.name}.`;
    return `Unexpected argument \`${issue.keys.join("`, `")}\` for ${tool.name}; it takes only: ${known}.`;
  }
  const given = valueAt(args, issue.path);
  if (given === undefined) return `${arg} is missing; it is required.`;
  switch (issue.code) {
    case "invalid_type": {
      const integer = issue.expected === "int" || declaredType(tool, issue.path) === "integer";
      return `${arg} must be ${article(integer ? "integer" : issue.expected)}, not ${describe(given)}.`;
    }
    case "invalid_value":
      return `${arg} must be one of: ${issue.values.map(String).join(", ")}.`;
    case "too_big":
      return issue.origin === "string"
        ? `${arg} is too long: at most ${issue.maximum} characters.`
        : issue.origin === "array"
          ? `${arg} has too many items: at most ${issue.maximum}.`
          : `${arg} must be at most ${issue.maximum}.`;
    case "too_small":
      return issue.origin === "string"
        ? `${arg} must not be empty.`
        : issue.origin === "array"
          ? `${arg} needs at least ${issue.minimum} item(s).`
          : `${arg} must be at least ${issue.minimum}.`;
    default:
      return `${arg} is invalid: ${issue.message}.`;
  }
}

/** The JSON Schema type the model was shown for the argument at `path` (zod says only "number" for an integer). */
function declaredType(tool: Tool, path: PropertyKey[]): unknown {
  let node: any = z.toJSONSchema(tool.schema);
  for (const key of path) node = typeof key === "number" ? node?.items : node?.properties?.[key as string];
  return node?.type;
}

function shapeOf(tool: Tool): Record<string, unknown> {
  const schema = tool.schema as unknown as { shape?: Record<string, unknown> };
  return schema.shape ?? {};
}

function valueAt(args: Record<string, unknown>, path: PropertyKey[]): unknown {
  let value: unknown = args;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a fractional number";
  if (typeof value === "string") return `the text ${JSON.stringify(value.length > 20 ? value.slice(0, 20) + "…" : value)}`;
  return article(typeof value);
}
