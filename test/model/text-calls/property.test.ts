/**
 * Properties of the text-call parsers (`recoverTextCalls`): a model's text is anything at all,
 * so on any string they answer (calls or nothing) without throwing, quickly, and never with a
 * call to a tool that was not offered.
 */
import fc from "fast-check";
import { describe, expect, test } from "bun:test";
import { recoverTextCalls, type Recovered } from "../../../src/model/text-calls/index.ts";
import { offeredName } from "../../../src/protocol/tool-names.ts";
import type { ToolDeclaration } from "../../../src/protocol/model.ts";
import { settings } from "../../helpers/property.ts";

/** Names that collide loosely (case, `-` for `_`) as well as plain ones: which are offered is drawn. */
const NAMES = ["read_file", "Read_File", "read-file", "write_file", "edit_file", "run", "finish", "get_weather", "a.b", "x"];

const declaration = (name: string): ToolDeclaration => ({
  name,
  description: name,
  parameters: { type: "object", properties: { path: { type: "string" }, n: { type: "integer" }, deep: { type: "object" }, flag: { type: "boolean" } } },
});

const offeredArbitrary = fc.uniqueArray(fc.constantFrom(...NAMES), { minLength: 0, maxLength: 5 }).map((names) => names.map(declaration));

/** The pieces the forms are made of, and what a model writes between them. */
const TOKENS = [
  "<tool_call>", "</tool_call>", "<function=", "</function>", "<parameter=", "</parameter>", ">", "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]",
  "<|python_tag|>", "```json\n", "```tool_call\n", "```", "\n```", "<think>", "</think>", "<|eot_id|>", "<|im_end|>", "</s>",
  "{", "}", "[", "]", '"', ":", ",", "\\", '"name"', '"arguments"', '"parameters"', '"function"', '"type"', '"id"', "null", "1e999", "-0", "true",
  "\n", "\r\n", " ", "\t", "path", "n", "deep", "é", "😀", "\u0000", "\u2028", "\ud800",
  ...NAMES, "READ_FILE", "unknown_tool", "rm",
];

const tokenText = fc.array(fc.oneof(fc.constantFrom(...TOKENS), fc.string({ maxLength: 4 })), { maxLength: 60 }).map((parts) => parts.join(""));

/** Prose a model writes before its calls: no brackets or markers that could start a form of their own. */
const prose = fc.array(fc.constantFrom(..."Let me do that. Okay, é😀 ".split(""), "\n", "\r\n"), { maxLength: 30 }).map((chars) => chars.join(""));

const FORMS = ["json", "tool_call", "function_xml", "mistral", "mistral_named", "python_tag", "fenced"] as const;

/** A call in one of the forms, to any name (offered or not), with any JSON arguments, after prose. */
const writtenCall = fc
  .record({
    prose,
    name: fc.constantFrom(...NAMES, "READ_FILE", "unknown_tool"),
    args: fc.jsonValue({ maxDepth: 3 }),
    form: fc.constantFrom(...FORMS),
    key: fc.constantFrom("arguments", "parameters"),
  })
  .map((call) => {
    const json = JSON.stringify({ name: call.name, [call.key]: call.args });
    const body = {
      json: `\n${json}`,
      tool_call: `<tool_call>\n${json}\n</tool_call>`,
      function_xml: `\n<function=${call.name}>\n<parameter=path>\n${JSON.stringify(call.args)}\n</parameter>\n</function>`,
      mistral: `[TOOL_CALLS][${json}]`,
      mistral_named: `[TOOL_CALLS]${call.name}[ARGS]${JSON.stringify(call.args)}`,
      python_tag: `<|python_tag|>${json}`,
      fenced: `\n\`\`\`json\n${json}\n\`\`\``,
    }[call.form];
    return { ...call, text: call.prose + body };
  });

const callText = writtenCall.map((call) => call.text);

const isObject = (value: unknown) => value !== null && typeof value === "object" && !Array.isArray(value);

/** The arguments a written call is read with, or undefined when the form cannot carry them (a list, a number). */
function readArguments(call: { form: (typeof FORMS)[number]; args: unknown }): unknown {
  if (call.form === "function_xml") return { path: JSON.stringify(call.args) };
  if (call.form === "mistral_named") return isObject(call.args) ? call.args : undefined;
  return typeof call.args === "string" || isObject(call.args) ? call.args : undefined;
}

/** Brackets nested far deeper than any JSON parser's stack, opened and maybe closed. */
const nestedText = fc
  .tuple(fc.constantFrom("[", "{", '{"a":', "<tool_call>[", "[TOOL_CALLS][", '<|python_tag|>{"name":"run","arguments":'), fc.integer({ min: 1_000, max: 20_000 }), fc.boolean())
  .map(([open, depth, closed]) => open.repeat(depth) + (closed ? (open.includes("{") ? "}" : "]").repeat(depth) : ""));

const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.string({ unit: "grapheme", maxLength: 200 }),
  tokenText,
  callText,
  fc.tuple(tokenText, callText, tokenText).map((parts) => parts.join("")),
  nestedText,
);

function expectOnlyOffered(found: Recovered | null, offered: ToolDeclaration[]): void {
  if (!found) return;
  const names = offered.map((tool) => tool.name);
  expect(found.calls.length).toBeGreaterThan(0);
  for (const call of found.calls) expect(offeredName(call.name, names)).not.toBeNull();
}

describe("recoverTextCalls on any text", () => {
  test("never throws, and never returns a call to a tool that was not offered", () => {
    fc.assert(
      fc.property(anyText, offeredArbitrary, (text, offered) => {
        const found = recoverTextCalls(text, offered);
        expectOnlyOffered(found, offered);
        if (found) expect(text.trimEnd().startsWith(found.prose)).toBe(true);
      }),
      settings(40_301, 400),
    );
  }, 60_000);

  test("a call written in a form is recovered, arguments and all, when its tool is offered, and never when it is not", () => {
    fc.assert(
      fc.property(writtenCall, offeredArbitrary, (call, offered) => {
        // A value whose text holds a tag of the XML form would end that form's value early.
        fc.pre(call.form !== "function_xml" || !/<\/?(parameter|function)/.test(JSON.stringify(call.args)));
        const found = recoverTextCalls(call.text, offered);
        expectOnlyOffered(found, offered);
        const args = readArguments(call);
        const reachable = offeredName(call.name, offered.map((tool) => tool.name)) !== null;
        if (!reachable || args === undefined) expect(found).toBeNull();
        else {
          expect(found?.calls).toEqual([{ name: call.name, arguments: args }]);
          expect(found?.prose).toBe(call.prose.trimEnd());
        }
      }),
      settings(40_302, 300),
    );
  }, 60_000);

  test("a long text of repeated pieces is read in well under a second", () => {
    const opener = fc.constantFrom("", "[", "{", "<tool_call>", "[TOOL_CALLS]", "<function=run>", "<|python_tag|>", "```json\n");
    const closer = fc.constantFrom("", "]", "}", "</tool_call>", "```", "</parameter>");
    fc.assert(
      fc.property(opener, fc.oneof({ arbitrary: fc.constant([]), weight: 2 }, { arbitrary: fc.array(fc.constantFrom(...TOKENS), { maxLength: 5 }), weight: 1 }), fc.integer({ min: 2_000, max: 40_000 }), closer, offeredArbitrary, (open, unit, times, end, offered) => {
        // Each repeat on a line of its own, as a model that loops writes it, and an ending that a form may close on.
        const text = (open + unit.join("") + "\n").repeat(times).slice(0, 100_000) + end;
        const started = performance.now();
        const found = recoverTextCalls(text, offered.length ? offered : [declaration("run")]);
        expect(performance.now() - started).toBeLessThan(1_000);
        expectOnlyOffered(found, offered.length ? offered : [declaration("run")]);
      }),
      settings(40_303, 60),
    );
  }, 60_000);
});
