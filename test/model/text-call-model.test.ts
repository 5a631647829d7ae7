import { describe, expect, test } from "bun:test";
import { TextCallModel } from "../../src/model/text-call-model.ts";
import { READ_INTERVAL_MS } from "../../src/model/http.ts";
import { LlamaCppModel } from "../../src/model/llamacpp.ts";
import { OllamaModel } from "../../src/model/ollama.ts";
import { ModelOptionsSchema } from "../../src/model/options.ts";
import type { ModelClient, ModelRequest } from "../../src/protocol/model.ts";
import { WireLog, readWireLog } from "../../src/trace/wire-log.ts";
import { assembled, collect } from "../helpers/model.ts";
import { llamaChunk, llamaCppServer, ollamaServer, SSE_HEADERS, type Scene } from "../helpers/fake-server.ts";
import { call, runScripted } from "../helpers/run.ts";
import { expectWellFormedRun } from "../helpers/invariants.ts";
import { makeWorkspace, tempFolder } from "../helpers/workspace.ts";

const options = ModelOptionsSchema.parse({ idle_timeout_seconds: 2 });

/** qwen2.5-coder's reply as ollama/ollama#12174 and opencode#10402 show it, prose first: bare JSON in the text. */
const QWEN_TEXT = 'I will read it first.\n{"name": "read_file", "arguments": {"path": "README.md"}}';

const request = (tools = true): ModelRequest => ({
  messages: [{ role: "user", content: "What is in README.md?" }],
  tools: tools ? [{ name: "read_file", description: "read a file", parameters: { type: "object", properties: { path: { type: "string" } } } }] : [],
  signal: new AbortController().signal,
});

/** The text cut into pieces of a few characters, as a slow server streams it. */
const pieces = (text: string) => text.match(/[\s\S]{1,3}/g) ?? [];
/** The pause between two pieces: a fast server's body is read once every READ_INTERVAL_MS, so the 27 pieces come in several reads. */
const TRICKLE_MS = Math.ceil(READ_INTERVAL_MS / 4);

/** llama.cpp's SSE in the captures' shape (role chunk, content chunks, finish, usage, [DONE]), a few characters a chunk. */
function llamaTrickle(text: string): Scene {
  return {
    status: 200,
    headers: SSE_HEADERS,
    pieces: [
      llamaChunk({ role: "assistant", content: null }),
      ...pieces(text).flatMap((piece) => [llamaChunk({ content: piece }), TRICKLE_MS]),
      llamaChunk({}, "stop"),
      "data: [DONE]\n\n",
    ],
  };
}

/** Ollama's NDJSON in the examples' shape, a few characters a line, then the done line with its counters. */
function ollamaTrickle(text: string): Scene {
  const line = (content: string, done: boolean) =>
    JSON.stringify({ model: "qwen2.5-coder:7b", created_at: "2026-11-30T10:02:00.000000Z", message: { role: "assistant", content }, done, ...(done ? { done_reason: "stop", prompt_eval_count: 120, eval_count: 40 } : {}) }) + "\n";
  return { status: 200, headers: { "Content-Type": "application/x-ndjson" }, pieces: [...pieces(text).flatMap((piece) => [line(piece, false), TRICKLE_MS]), line("", true)] };
}

describe("a streamed reply whose text is a tool call, a few characters at a time", () => {
  const adapters: Array<[string, (wire: WireLog) => ModelClient]> = [
    ["llama.cpp (SSE)", (wire) => new LlamaCppModel("llamacpp", llamaCppServer(() => llamaTrickle(QWEN_TEXT)).url, options, wire)],
    ["Ollama (NDJSON)", (wire) => new OllamaModel("ollama:qwen2.5-coder:7b", "qwen2.5-coder:7b", ollamaServer(() => ollamaTrickle(QWEN_TEXT)).url, options, wire)],
  ];
  for (const [name, adapter] of adapters) {
    test(`${name}: the text streams as it came, the call is recovered at the end, the wire log keeps the raw text`, async () => {
      const wire = new WireLog(`${tempFolder("wire")}/wire.jsonl`);
      const { deltas, error } = await collect(new TextCallModel(adapter(wire)), request());
      expect(error).toBeNull();
      const texts = deltas.filter((delta) => delta.type === "text");
      expect(texts.length).toBeGreaterThan(3);
      expect(texts.map((delta) => (delta as { text: string }).text).join("")).toBe(QWEN_TEXT);
      expect(deltas.at(-1)).toMatchObject({ type: "text_calls", form: "json" });
      const reply = assembled(deltas);
      expect(reply.content).toBe("I will read it first.");
      expect(reply.tool_calls).toEqual([{ id: "s1c1", name: "read_file", arguments: { path: "README.md" }, from_text: true }]);
      const response = readWireLog(wire.path).find((entry) => entry.kind === "response");
      expect(response?.kind === "response" && response.message).toEqual({ content: QWEN_TEXT, thinking: "", tool_calls: [] });
    });
  }

  test("a reply with a protocol tool call is left as the server sent it", async () => {
    const server = llamaCppServer(() => ({
      status: 200,
      headers: SSE_HEADERS,
      pieces: [
        llamaChunk({ content: '{"name": "read_file", "arguments": {"path": "other.md"}}' }),
        llamaChunk({ tool_calls: [{ index: 0, id: "p1", type: "function", function: { name: "read_file", arguments: '{"path":"README.md"}' } }] }),
        llamaChunk({}, "tool_calls"),
        "data: [DONE]\n\n",
      ],
    }));
    const { deltas } = await collect(new TextCallModel(new LlamaCppModel("llamacpp", server.url, options)), request());
    expect(deltas.some((delta) => delta.type === "text_calls")).toBe(false);
    expect(assembled(deltas).tool_calls).toEqual([{ id: "p1", name: "read_file", arguments: '{"path":"README.md"}' }]);
  });

  test("a request that offers no tools recovers nothing", async () => {
    const server = llamaCppServer(() => llamaTrickle(QWEN_TEXT));
    const { deltas } = await collect(new TextCallModel(new LlamaCppModel("llamacpp", server.url, options)), request(false));
    expect(assembled(deltas)).toMatchObject({ content: QWEN_TEXT, tool_calls: [] });
  });

  test("thinking is never read for calls", async () => {
    const server = ollamaServer(() => ({
      status: 200,
      headers: { "Content-Type": "application/x-ndjson" },
      pieces: [
        JSON.stringify({ model: "qwen3:8b", message: { role: "assistant", content: "", thinking: '{"name": "read_file", "arguments": {"path": "README.md"}}' }, done: false }) + "\n",
        JSON.stringify({ model: "qwen3:8b", message: { role: "assistant", content: "" }, done: true, done_reason: "stop" }) + "\n",
      ],
    }));
    const { deltas } = await collect(new TextCallModel(new OllamaModel("ollama:qwen3:8b", "qwen3:8b", server.url, options)), request());
    expect(deltas.some((delta) => delta.type === "thinking")).toBe(true);
    expect(assembled(deltas)).toMatchObject({ content: "", tool_calls: [] });
  });
});

describe("a run whose model writes its calls as text", () => {
  test("the call goes through the checkpoint, is marked from_text, and is sent back as a protocol call with its id", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([{ content: QWEN_TEXT }, { content: "It is a version helper." }], { workspace: ws.root, textCalls: true });
    expectWellFormedRun(run);
    expect(run.stop).toMatchObject({ status: "completed", answer: "It is a version helper.", tool_calls: 1 });
    expect(run.calls[0]).toMatchObject({ tool: "read_file", decision: "allowed", from_text: true });
    const second = run.model.requests[1]!.messages;
    const assistant = second.find((message) => message.role === "assistant")!;
    expect(assistant).toMatchObject({ content: "I will read it first.", tool_calls: [{ id: "s1c1", name: "read_file", from_text: true }] });
    expect(second.find((message) => message.role === "tool")).toMatchObject({ tool_call_id: "s1c1" });
  });

  test("a recovered call that the checkpoint refuses is refused like any call", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([{ content: '{"name": "read_file", "arguments": {"path": "../outside.txt"}}' }, { content: "I cannot." }], { workspace: ws.root, textCalls: true });
    expect(run.calls[0]).toMatchObject({ decision: "refused", from_text: true });
  });

  test("switched off, the text is the answer, as before", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([{ content: QWEN_TEXT }], { workspace: ws.root, textCalls: false });
    expect(run.stop).toMatchObject({ status: "completed", answer: QWEN_TEXT, tool_calls: 0 });
  });

  test("a protocol call carries no from_text", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("read_file", { path: "README.md" }, "c1"), { content: "ok" }], { workspace: ws.root, textCalls: true });
    expect(run.calls[0]!.from_text).toBeUndefined();
  });
});

test("a long reply streams through holding about its text, not a string per delta", async () => {
  const { heapStats } = require("bun:jsc") as typeof import("bun:jsc");
  const deltas = 300_000;
  const inner: ModelClient = {
    name: "many-deltas",
    async *reply() {
      // A fresh string each delta, as a server's parsed chunks are.
      for (let i = 0; i < deltas; i++) yield { type: "text", text: `w${i} ` };
      yield { type: "done", finish_reason: "stop" };
    },
  };
  Bun.gc(true);
  const before = heapStats().heapSize;
  const reply = new TextCallModel(inner).reply(request())[Symbol.asyncIterator]();
  // Up to the last text delta: the wrapper holds the whole text, to look for calls at the end.
  for (let i = 0; i < deltas; i++) await reply.next();
  Bun.gc(true);
  const held = heapStats().heapSize - before;
  expect((await reply.next()).value).toEqual({ type: "done", finish_reason: "stop" });
  // 2.2 MB of text (2.5 MB held); kept as a string per delta it took 19.7 MB.
  expect(held).toBeLessThan(5e6);
}, 60_000);
