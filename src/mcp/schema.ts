import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { McpLimits } from "./limits.ts";

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

/** An input schema that cannot be used: the tool is not offered, and this says why. */
export class SchemaProblem extends Error {}

/** An input schema compiled for validation, and the schema the model is shown (the same constraints). */
export interface CompiledSchema {
  shown: Record<string, unknown>;
  validate: ValidateFunction;
}

// Formats are not checked (no format vocabulary is bundled); unknown keywords are the schema's own notes.
const options = { strict: false, allErrors: false, validateFormats: false } as const;
const draft07 = new Ajv(options);
const draft2020 = new Ajv2020(options);

/**
 * Compiles a server's input schema with the draft it declares (2020-12 when it declares none, as
 * MCP specifies). Objects that do not say otherwise refuse keys they do not declare. Anything that
 * does not compile, or is over a cap, throws SchemaProblem: fail closed, never skip validation.
 */
export function compileInputSchema(schema: unknown, limits: McpLimits): CompiledSchema {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) throw new SchemaProblem("its input schema is not a JSON object");
  const text = JSON.stringify(schema);
  if (text.length > limits.max_schema_bytes) throw new SchemaProblem(`its input schema is ${text.length} bytes, over the cap of ${limits.max_schema_bytes}`);
  const depth = depthOf(schema);
  if (depth > limits.max_schema_depth) throw new SchemaProblem(`its input schema nests ${depth} deep, over the cap of ${limits.max_schema_depth}`);
  const declared = (schema as { $schema?: unknown }).$schema;
  let ajv: Ajv | Ajv2020;
  if (declared === undefined || (typeof declared === "string" && DRAFT_2020.test(declared))) ajv = draft2020;
  else if (typeof declared === "string" && DRAFT_07.test(declared)) ajv = draft07;
  else throw new SchemaProblem(`its input schema declares ${JSON.stringify(String(declared).slice(0, 80))}; only draft-07 and 2020-12 are supported`);
  const shown = closeObjects(structuredClone(schema)) as Record<string, unknown>;
  if (shown.type !== "object") throw new SchemaProblem('its input schema is not {"type": "object"}');
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(shown);
  } catch (error) {
    throw new SchemaProblem(`its input schema does not compile (${(error as Error).message.split("\n")[0]!.slice(0, 160)})`);
  }
  // Compiled schemas are kept by the Ajv instance; the tool keeps its own function.
  ajv.removeSchema(shown);
  return { shown, validate };
}

function depthOf(value: unknown): number {
  if (!value || typeof value !== "object") return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child));
  return deepest + 1;
}

/** Every object schema with `properties` and no word on extra keys gets additionalProperties: false. */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (!node || typeof node !== "object") return node;
  const schema = node as Record<string, unknown>;
  for (const [key, child] of Object.entries(schema)) if (key !== "const" && key !== "enum" && key !== "default" && key !== "examples") schema[key] = closeObjects(child);
  const composed = "allOf" in schema || "anyOf" in schema || "oneOf" in schema || "$ref" in schema;
  const isObject = schema.type === "object" || "properties" in schema;
  if (isObject && !composed && !("additionalProperties" in schema) && !("unevaluatedProperties" in schema) && !("patternProperties" in schema)) {
    schema.additionalProperties = false;
  }
  return schema;
}

/** The first problem as a refusal sentence naming the argument, like every other refusal. */
export function refusalFor(tool: string, errors: ErrorObject[] | null | undefined): string {
  const error = errors?.[0];
  if (!error) return `The arguments for ${tool} do not match its schema.`;
  const at = error.instancePath.split("/").slice(1).map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~")).join(".");
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "additionalProperties") {
    const key = String(params.additionalProperty);
    return at ? `Unexpected key \`${key}\` in argument \`${at}\` of ${tool}.` : `Unexpected argument \`${key}\` for ${tool}; it is not in the tool's schema.`;
  }
  if (error.keyword === "required") {
    const missing = at ? `${at}.${params.missingProperty}` : String(params.missingProperty);
    return `Argument \`${missing}\` of ${tool} is missing; it is required.`;
  }
  const message = error.message ?? "is invalid";
  if (!at) return `The arguments for ${tool} ${message}.`;
  const allowed = error.keyword === "enum" ? `: ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(", ")}` : "";
  return `Argument \`${at}\` of ${tool} ${message}${allowed}.`;
}
