import { describe, expect, test } from "bun:test";
import { ARGUMENT_LIMITS, argumentsRefusal, nestedDeeperThan, textNestedDeeperThan, valueNestedDeeperThan } from "../../src/protocol/argument-limits.ts";
import { canonicalJson, jsonText } from "../../src/protocol/canonical.ts";
import { ReplyBuilder } from "../../src/model/reply.ts";
import { replayableCalls } from "../../src/core/reply-faults.ts";
import { recoverTextCalls } from "../../src/model/text-calls/index.ts";
import { defaultTools } from "../../src/tools/index.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { call, runScripted } from "../helpers/run.ts";
import { makeWorkspace } from "../helpers/workspace.ts";

/** An object `levels` deep: {"a":{"a":…{}}}, built without recursion. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 1; level < levels; level++) value = { a: value };
  return value;
}

const brackets = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
/** 200 KB of `[`: deep enough to overflow every recursive walk of the parsed value. */
const HOSTILE_TEXT = brackets(200_000);

describe("how deep arguments nest, found without recursion", () => {
  test("64 levels are allowed and 65 are not, as text and as a value", () => {
    expect(ARGUMENT_LIMITS.max_depth).toBe(64);
    expect(textNestedDeeperThan(brackets(64), 64)).toBe(false);
    expect(textNestedDeeperThan(brackets(65), 64)).toBe(true);
    expect(valueNestedDeeperThan(nested(64), 64)).toBe(false);
    expect(valueNestedDeeperThan(nested(65), 64)).toBe(true);
    expect(nestedDeeperThan(JSON.stringify(nested(65)), 64)).toBe(true);
    expect(nestedDeeperThan(nested(65), 64)).toBe(true);
  });

  test("brackets inside strings do not count, escaped quotes included", () => {
    const inString = JSON.stringify({ text: "[".repeat(500) + '\\"' + "{".repeat(500) });
    expect(textNestedDeeperThan(inString, 64)).toBe(false);
    expect(textNestedDeeperThan(`{"a":"\\\\"${"[".repeat(70)}`, 64)).toBe(true);
  });

  test("closing brackets bring the depth down: wide but shallow is not deep", () => {
    expect(textNestedDeeperThan("[[]]".repeat(100_000), 64)).toBe(false);
    expect(valueNestedDeeperThan({ items: Array.from({ length: 100_000 }, () => [1]) }, 64)).toBe(false);
  });

  test("200 KB of nesting is measured, as text and as a value, without overflowing the stack", () => {
    expect(textNestedDeeperThan(HOSTILE_TEXT, 64)).toBe(true);
    expect(valueNestedDeeperThan(JSON.parse(HOSTILE_TEXT), 64)).toBe(true);
  });
});

describe("the refusal names the arguments and the limit", () => {
  test("too deep, too large, and within both", () => {
    expect(argumentsRefusal("read_file", HOSTILE_TEXT, 1_000_000)).toBe(
      "The arguments of read_file are nested deeper than 64 levels, the most allowed; send a flat JSON object.",
    );
    expect(argumentsRefusal("read_file", { path: "x".repeat(1_001) }, 1_000)).toBe(
      "The arguments of read_file are larger than 1000 characters, this tool's cap; send less in one call.",
    );
    // The cap is on the arguments as JSON text, inclusive.
    const exact = `{"path":"${"x".repeat(1_000 - 11)}"}`;
    expect(exact.length).toBe(1_000);
    expect(argumentsRefusal("read_file", exact, 1_000)).toBeNull();
    expect(argumentsRefusal("read_file", JSON.parse(exact), 1_000)).toBeNull();
  });

  test("the tools that carry a file's text have a cap of their own, over the default; a cap is validated", () => {
    const caps = Object.fromEntries(defaultTools({}).map((tool) => [tool.name, tool.maxArgumentChars ?? ARGUMENT_LIMITS.max_chars]));
    expect(caps.read_file).toBe(1_000_000);
    expect(caps.write_file).toBe(2_000_000);
    expect(caps.edit_file).toBe(2_000_000);
    const tool = { ...defaultTools({})[0]!, maxArgumentChars: 1.5 };
    expect(() => defineTool(tool)).toThrow();
  });
});

describe("JSON text without recursion", () => {
  test("is what JSON.stringify writes, for the values JSON has", () => {
    const values: unknown[] = [
      null,
      true,
      0,
      -1.5e-7,
      "a \"quoted\" \n line",
      [],
      {},
      [1, [2, [3, {}]], "x", null],
      { b: 1, a: { d: [true, false], c: "é" }, "": [] },
      { skipped: undefined, kept: 1, list: [undefined, () => 1] },
      { when: new Date(0) },
      [Number.NaN, Number.POSITIVE_INFINITY],
    ];
    for (const value of values) expect(jsonText(value)).toBe(JSON.stringify(value));
  });

  test("canonical JSON sorts keys at every depth, and survives 200 KB of nesting", () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [{ f: 1, e: 2 }] } })).toBe('{"a":{"c":[{"e":2,"f":1}],"d":2},"b":1}');
    const deep = JSON.parse(HOSTILE_TEXT);
    expect(canonicalJson(deep)).toBe(HOSTILE_TEXT);
  });
});

describe("arguments nested too deep as a value are carried as text", () => {
  test("a reply's call keeps a shallow value, and carries a deep one as its JSON text", () => {
    const builder = new ReplyBuilder();
    builder.add({ type: "tool_call", index: 0, name: "read_file", arguments: { path: "a" } });
    builder.add({ type: "tool_call", index: 1, name: "read_file", arguments: nested(65) });
    const [shallow, deep] = builder.result(1).tool_calls;
    expect(shallow!.arguments).toEqual({ path: "a" });
    expect(deep!.arguments).toBe(JSON.stringify(nested(65)));
  });

  test("arguments refused for their depth or size go back to the server as {}", () => {
    const calls = [
      { id: "a", name: "read_file", arguments: '{"path":"a"}' },
      { id: "b", name: "read_file", arguments: '{"path":"b"}' },
    ];
    expect(replayableCalls(calls, [null, "refused"]).map((replayed) => replayed.arguments)).toEqual(['{"path":"a"}', "{}"]);
  });
});

describe("a run given hostile arguments refuses them and goes on", () => {
  /** The run went on past the call: one tool message, refused with `reason`, then the answer. */
  async function expectRefused(args: unknown, reason: string, tool = "read_file") {
    const ws = makeWorkspace();
    const run = await runScripted([call(tool, args), { content: "done" }], { workspace: ws.root });
    expect(run.stop).toMatchObject({ status: "completed", answer: "done" });
    expect(run.calls).toHaveLength(1);
    expect(run.calls[0]).toMatchObject({ tool, decision: "refused", reason, result: `Refused: ${reason}` });
    const toolMessages = run.model.requests[1]!.messages.filter((message) => message.role === "tool");
    expect(toolMessages).toEqual([expect.objectContaining({ tool_call_id: run.calls[0]!.id, content: `Refused: ${reason}` })]);
    // What goes back to the server is an empty object, not the hostile arguments.
    const assistant = run.model.requests[1]!.messages.find((message) => message.role === "assistant");
    expect(assistant).toMatchObject({ tool_calls: [expect.objectContaining({ arguments: "{}" })] });
    return run;
  }

  const TOO_DEEP = "The arguments of read_file are nested deeper than 64 levels, the most allowed; send a flat JSON object.";

  test("200 KB of `[` nesting as the arguments' text", async () => {
    const run = await expectRefused(HOSTILE_TEXT, TOO_DEEP);
    expect(run.calls[0]!.arguments).toBe(HOSTILE_TEXT);
  });

  test("a scripted object 100 levels deep", async () => {
    const run = await expectRefused(nested(100), TOO_DEEP);
    expect(run.calls[0]!.arguments).toBe(JSON.stringify(nested(100)));
  });

  test("200 KB of nesting as a scripted value", async () => {
    await expectRefused(JSON.parse(HOSTILE_TEXT), TOO_DEEP);
  });

  test("a wide but shallow argument larger than the tool's cap", async () => {
    const wide = { path: "README.md", extra: Array.from({ length: 200_000 }, (_, index) => `item ${index}`) };
    await expectRefused(wide, "The arguments of read_file are larger than 1000000 characters, this tool's cap; send less in one call.");
  });

  test("write_file's content within its own cap passes the screen (and is refused by its schema instead)", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("write_file", { path: "big.txt", content: "x".repeat(1_200_000) }), { content: "done" }], { workspace: ws.root });
    expect(run.calls[0]).toMatchObject({ decision: "refused", reason: "Argument `content` of write_file is too long: at most 1000000 characters." });
  });

  test("a call naming no tool is screened by the default cap, and named as the model wrote it", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("no_such_tool", HOSTILE_TEXT), { content: "done" }], { workspace: ws.root });
    expect(run.calls[0]).toMatchObject({ decision: "refused", reason: 'The arguments of "no_such_tool" are nested deeper than 64 levels, the most allowed; send a flat JSON object.' });
  });

  test("a deep call recovered from the reply's text is refused too", async () => {
    const ws = makeWorkspace();
    const text = JSON.stringify({ name: "read_file", arguments: nested(100) });
    expect(recoverTextCalls(text, [{ name: "read_file", description: "", parameters: {} }])).not.toBeNull();
    const run = await runScripted([{ content: text }, { content: "done" }], { workspace: ws.root, textCalls: true });
    expect(run.calls[0]).toMatchObject({ tool: "read_file", decision: "refused", reason: TOO_DEEP, from_text: true });
  });

  test("every call of a batch gets one answer: hostile ones refused, the others run", async () => {
    const ws = makeWorkspace();
    const batch = { content: "", tool_calls: [
      { id: "c1", name: "read_file", arguments: HOSTILE_TEXT },
      { id: "c2", name: "read_file", arguments: { path: "README.md" } },
    ] };
    const run = await runScripted([batch, { content: "done" }], { workspace: ws.root });
    expect(run.calls.map((made) => [made.id, made.decision])).toEqual([["c1", "refused"], ["c2", "allowed"]]);
    expect(run.stop.status).toBe("completed");
  });
});
