import { describe, expect, test } from "bun:test";
import { compileInputSchema, refusalFor, SchemaProblem } from "../../src/mcp/schema.ts";
import { MCP_LIMITS } from "../../src/mcp/limits.ts";

/** The refusal sentence for `value`, or "ok". */
function check(schema: unknown, value: unknown): string {
  const compiled = compileInputSchema(schema, MCP_LIMITS);
  return compiled.validate(value) ? "ok" : refusalFor("mcp__s__t", compiled.validate.errors);
}

const NESTED = { type: "object", properties: { n: { type: "integer" }, opts: { type: "object", properties: { mode: { enum: ["a", "b"] } } } }, required: ["n"] };

describe("arguments checked against the server's JSON Schema", () => {
  test.each([
    ["valid", { n: 1 }, "ok"],
    ["wrong type", { n: "1" }, "Argument `n` of mcp__s__t must be integer."],
    ["missing", {}, "Argument `n` of mcp__s__t is missing; it is required."],
    ["a key the schema does not declare", { n: 1, extra: true }, "Unexpected argument `extra` for mcp__s__t; it is not in the tool's schema."],
    ["an undeclared key inside an object", { n: 1, opts: { other: 1 } }, "Unexpected key `other` in argument `opts` of mcp__s__t."],
    ["enum", { n: 1, opts: { mode: "c" } }, 'Argument `opts.mode` of mcp__s__t must be equal to one of the allowed values: "a", "b".'],
  ])("%s", (_what, value, sentence) => {
    expect(check(NESTED, value)).toBe(sentence);
  });

  test("draft-07 and 2020-12 are each compiled as declared", () => {
    const draft07 = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { list: { type: "array", items: [{ type: "string" }], additionalItems: false } } };
    expect(check(draft07, { list: ["x"] })).toBe("ok");
    expect(check(draft07, { list: ["x", "y"] })).toContain("Argument `list` of mcp__s__t must NOT have more than 1 items");
    const draft2020 = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { list: { type: "array", prefixItems: [{ type: "string" }], items: false } } };
    expect(check(draft2020, { list: ["x", "y"] })).toContain("must NOT have more than 1 items");
  });

  test("a schema that says extra keys are fine keeps them", () => {
    expect(check({ type: "object", properties: { a: { type: "string" } }, additionalProperties: true }, { a: "x", b: 1 })).toBe("ok");
  });
});

describe("schemas that cannot be used are refused, never skipped", () => {
  let deep: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < 20; i++) deep = { type: "object", properties: { x: deep } };
  test.each([
    ["does not compile", { type: "object", properties: { a: { type: "nonsense" } } }, "does not compile"],
    ["a dangling $ref", { type: "object", properties: { a: { $ref: "#/$defs/missing" } } }, "does not compile"],
    ["an unknown draft", { $schema: "http://json-schema.org/draft-04/schema#", type: "object" }, "only draft-07 and 2020-12"],
    ["not an object schema", { type: "string" }, 'not {"type": "object"}'],
    ["missing", undefined, "not a JSON object"],
    ["too deep", deep, "nests"],
    ["too large", { type: "object", description: "x".repeat(40_000) }, "over the cap"],
  ])("%s", (_what, schema, message) => {
    expect(() => compileInputSchema(schema, MCP_LIMITS)).toThrow(SchemaProblem);
    expect(() => compileInputSchema(schema, MCP_LIMITS)).toThrow(message);
  });
});
