import { describe, expect, test } from "bun:test";
import { ScriptSchema, ScriptedModel, type ScriptedReply } from "../../src/model/scripted.ts";
import { ModelError, type ModelDelta } from "../../src/protocol/model.ts";

const model = (replies: ScriptedReply[]) => new ScriptedModel("scripted:test", ScriptSchema.parse({ replies }));
const request = (signal = new AbortController().signal) => ({ messages: [{ role: "user" as const, content: "task" }], tools: [], signal });

async function collect(stream: AsyncIterable<ModelDelta>): Promise<ModelDelta[]> {
  const deltas: ModelDelta[] = [];
  for await (const delta of stream) deltas.push(delta);
  return deltas;
}

describe("ScriptedModel", () => {
  test("plays replies in order, as deltas", async () => {
    const scripted = model([
      { content: "", tool_calls: [{ id: "c1", name: "read_file", arguments: { path: "README.md" } }] },
      { content: "It is a version helper.", thinking: "hmm", usage: { prompt_tokens: 10, gen_tokens: 3 } },
    ]);
    expect(scripted.name).toBe("scripted:test");
    expect(await collect(scripted.reply(request()))).toEqual([
      { type: "tool_call", index: 0, id: "c1", name: "read_file", arguments: { path: "README.md" } },
      { type: "done", finish_reason: "tool_calls" },
    ]);
    expect(await collect(scripted.reply(request()))).toEqual([
      { type: "thinking", text: "hmm" },
      { type: "text", text: "It is a version helper." },
      { type: "usage", prompt_tokens: 10, gen_tokens: 3 },
      { type: "done", finish_reason: "stop" },
    ]);
  });

  test("running out of replies is a model error", async () => {
    const scripted = model([{ content: "one" }]);
    await collect(scripted.reply(request()));
    const failing = collect(scripted.reply(request()));
    await expect(failing).rejects.toBeInstanceOf(ModelError);
    await expect(failing).rejects.toThrow("no replies left");
    await expect(collect(model([]).reply(request()))).rejects.toThrow("no replies left");
  });

  test("a reply with error fails that turn with its text, and the next reply still plays", async () => {
    const scripted = model([{ error: "HTTP 500: boom" }, { content: "recovered" }]);
    const failing = collect(scripted.reply(request()));
    await expect(failing).rejects.toBeInstanceOf(ModelError);
    await expect(failing).rejects.toThrow("HTTP 500: boom");
    await failing.catch(() => {});
    expect(await collect(scripted.reply(request()))).toContainEqual({ type: "text", text: "recovered" });
  });

  test("an aborted request fails", async () => {
    const stop = new AbortController();
    stop.abort();
    await expect(collect(model([{ content: "x" }]).reply(request(stop.signal)))).rejects.toBeInstanceOf(ModelError);
  });

  test("arguments may be any JSON value and pass through untouched; missing ones are {}", async () => {
    const values = ["{\"path\": \"a\"", [1, 2], 42, null, "garbage", { nested: { deep: true } }];
    const scripted = model([{ tool_calls: values.map((value, i) => ({ name: `t${i}`, arguments: value })).concat([{ name: "bare" } as never]) }]);
    const calls = (await collect(scripted.reply(request()))).filter((delta) => delta.type === "tool_call");
    expect(calls.map((delta) => (delta as { arguments: unknown }).arguments)).toEqual([...values.map((value) => value ?? {}), {}]);
    expect(calls.map((delta) => (delta as { id?: string }).id)).toEqual(Array(7).fill(undefined));
  });

  test("finish_reason from the script wins", async () => {
    const deltas = await collect(model([{ content: "cut", finish_reason: "length" }]).reply(request()));
    expect(deltas.at(-1)).toEqual({ type: "done", finish_reason: "length" });
  });
});

describe("the script format", () => {
  test("content defaults to empty", () => {
    expect(ScriptSchema.parse({ replies: [{}] }).replies[0]!.content).toBe("");
  });

  test("unknown keys are rejected at every level", () => {
    expect(ScriptSchema.safeParse({ replies: [], extra: 1 }).success).toBe(false);
    expect(ScriptSchema.safeParse({ replies: [{ contents: "typo" }] }).success).toBe(false);
    expect(ScriptSchema.safeParse({ replies: [{ tool_calls: [{ name: "x", args: {} }] }] }).success).toBe(false);
    expect(ScriptSchema.safeParse({ replies: [{ usage: { prompt_tokens: 1, gen_tokens: 1, total: 2 } }] }).success).toBe(false);
  });

  test("a tool call needs a name; usage needs whole non-negative numbers", () => {
    expect(ScriptSchema.safeParse({ replies: [{ tool_calls: [{ arguments: {} }] }] }).success).toBe(false);
    expect(ScriptSchema.safeParse({ replies: [{ usage: { prompt_tokens: -1, gen_tokens: 1 } }] }).success).toBe(false);
    expect(ScriptSchema.safeParse({ replies: [{ usage: { prompt_tokens: 1.5, gen_tokens: 1 } }] }).success).toBe(false);
    expect(ScriptSchema.safeParse({ replies: [{ usage: { prompt_tokens: 1, gen_tokens: 1 } }] }).success).toBe(true);
  });

  test("replies must be a list", () => {
    expect(ScriptSchema.safeParse({}).success).toBe(false);
    expect(ScriptSchema.safeParse({ replies: {} }).success).toBe(false);
  });
});
