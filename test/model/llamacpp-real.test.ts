/**
 * The llama.cpp adapter against a real llama-server (test/helpers/llama.ts: llama.cpp from the
 * machine or Debian's packages, serving a tiny generated model with Qwen2.5's tokenizer and chat
 * template). The prose model's random weights answer in text; the tools model's every reply is a
 * real tool call, written by the server's own grammar and parsed by its own parser.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { LlamaCppModel } from "../../src/model/llamacpp.ts";
import { ModelOptionsSchema } from "../../src/model/options.ts";
import { ModelError, type ModelDelta, type ModelRequest, type ToolDeclaration } from "../../src/protocol/model.ts";
import { discoverModels } from "../../src/model/discovery.ts";
import { assembled, collect } from "../helpers/model.ts";
import { LLAMA_START_TIMEOUT, llamaServer, withoutLlama, type LlamaServer } from "../helpers/llama.ts";

const READ_FILE: ToolDeclaration = {
  name: "read_file",
  description: "Read a file of the workspace.",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
};

const model = (server: LlamaServer, extra: Record<string, unknown> = {}) =>
  new LlamaCppModel("llamacpp", server.url, ModelOptionsSchema.parse({ idle_timeout_seconds: 30, temperature: 0, seed: 1, ...extra }));

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    messages: [
      { role: "system", content: "You are a test." },
      { role: "user", content: "Read README.md and say what it is about." },
    ],
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

const usageOf = (deltas: ModelDelta[]) => deltas.find((delta): delta is Extract<ModelDelta, { type: "usage" }> => delta.type === "usage");

describe.skipIf(await withoutLlama())("the llama.cpp adapter against a real llama-server", () => {
  let prose: LlamaServer;
  let tools: LlamaServer;
  beforeAll(async () => {
    [prose, tools] = await Promise.all([llamaServer("prose"), llamaServer("tools")]);
  }, LLAMA_START_TIMEOUT);

  test("streams text token by token, ends with its finish reason, and reports usage and timings", async () => {
    const { deltas, error } = await collect(model(prose, { max_tokens: 24 }), request());
    expect(error).toBeNull();
    const texts = deltas.filter((delta) => delta.type === "text");
    expect(texts.reduce((sum, delta) => sum + (delta.type === "text" ? (delta.chunks ?? 1) : 0), 0)).toBeGreaterThan(1);
    const reply = assembled(deltas);
    expect(reply.content.length).toBeGreaterThan(0);
    expect(["length", "stop"]).toContain(reply.finish_reason!);
    const usage = usageOf(deltas)!;
    expect(usage.prompt_tokens).toBeGreaterThan(10);
    expect(usage.gen_tokens).toBeGreaterThan(0);
    // The server's own figures, read from its timings: cache_n is what it reused, prompt_ms its prefill.
    const timings = usage.timings as { cache_n: number; prompt_ms: number; prompt_n: number };
    expect(usage.cached_tokens).toBe(timings.cache_n);
    expect(usage.prefill_ms).toBe(timings.prompt_ms);
    expect(timings.prompt_n + timings.cache_n).toBe(usage.prompt_tokens);
  });

  test("the second request of a conversation reuses the first's prompt from the cache", async () => {
    const client = model(prose, { max_tokens: 4 });
    const first = request({ messages: [{ role: "system", content: "You are a test. ".repeat(40) }, { role: "user", content: "Say something." }] });
    const one = await collect(client, first);
    const two = await collect(client, { ...first, messages: [...first.messages, { role: "assistant", content: assembled(one.deltas).content }, { role: "user", content: "More." }] });
    expect(two.error).toBeNull();
    expect(usageOf(two.deltas)!.cached_tokens!).toBeGreaterThan(usageOf(one.deltas)!.prompt_tokens / 2);
  });

  test("a streamed tool call: the id, the whole name, and arguments that parse with the model's own whitespace", async () => {
    const { deltas, error } = await collect(model(tools, { max_tokens: 64 }), request({ tools: [READ_FILE] }));
    expect(error).toBeNull();
    const reply = assembled(deltas);
    expect(reply.finish_reason).toBe("tool_calls");
    expect(reply.tool_calls).toHaveLength(1);
    const [call] = reply.tool_calls;
    expect(call!.name).toBe("read_file");
    expect(call!.id.length).toBeGreaterThan(4);
    expect(typeof call!.arguments).toBe("string");
    const args = JSON.parse(call!.arguments as string);
    expect(typeof args.path).toBe("string");
    // Streamed in pieces: the first delta carries the name, later ones only argument text.
    const pieces = deltas.filter((delta) => delta.type === "tool_call");
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.slice(1).every((delta) => delta.type === "tool_call" && !delta.name)).toBe(true);
  });

  test("several calls in one reply: indices 0, 1, 2…, each with its own id, the whole ones' arguments parse", async () => {
    // The calls model opens another call after each one; the reply cap ends the run of them.
    const { deltas, error } = await collect(model(await llamaServer("calls"), { max_tokens: 100 }), request({ tools: [READ_FILE] }));
    expect(error).toBeNull();
    const indices = [...new Set(deltas.flatMap((delta) => (delta.type === "tool_call" ? [delta.index] : [])))];
    expect(indices.length).toBeGreaterThanOrEqual(3);
    expect(indices).toEqual(indices.map((_, at) => at));
    const reply = assembled(deltas);
    expect(new Set(reply.tool_calls.map((call) => call.id)).size).toBe(reply.tool_calls.length);
    const whole = reply.tool_calls.filter((call) => {
      try {
        return typeof JSON.parse(call.arguments as string).path === "string";
      } catch {
        return false;
      }
    });
    expect(whole.length).toBeGreaterThanOrEqual(2);
  }, LLAMA_START_TIMEOUT);

  test("/props: the window per slot and the slots, as started", async () => {
    expect(await model(prose).contextSize(new AbortController().signal)).toBe(32768);
    const props = (await (await fetch(`${prose.url}/props`)).json()) as any;
    expect(props.total_slots).toBe(1);
    expect(props.chat_template_caps.supports_tools).toBe(true);
  });

  test("the prompt's tokens, counted by the server before sending, are what it then reports", async () => {
    const client = model(tools, { max_tokens: 48 });
    const req = request({ tools: [READ_FILE] });
    const counted = await client.countPromptTokens(req.messages, req.tools, req.signal);
    const { deltas } = await collect(client, req);
    expect(counted).toBe(usageOf(deltas)!.prompt_tokens);
  });

  test("discovery lists the loaded model with its window", async () => {
    const found = await discoverModels({ llamacppUrl: prose.url, ollamaUrl: "http://127.0.0.1:9" });
    const candidate = found.candidates.find((entry) => entry.server === "llamacpp");
    expect(candidate).toMatchObject({ spec: `llamacpp:${prose.url}`, contextLength: 32768 });
    expect(candidate!.name).toEndWith(".gguf");
  });

  test("a request cancelled mid-stream leaves the server free: the next one is answered", async () => {
    const abort = new AbortController();
    const client = model(prose, { max_tokens: 2000 });
    let pieces = 0;
    const cancelled = await (async () => {
      try {
        for await (const delta of client.reply(request({ signal: abort.signal }))) {
          if (delta.type === "text" && ++pieces === 3) abort.abort();
        }
        return null;
      } catch (error) {
        return error;
      }
    })();
    expect(cancelled).not.toBeNull();
    // The slot was released: a fresh request streams to its end.
    const next = await collect(model(prose, { max_tokens: 8 }), request());
    expect(next.error).toBeNull();
    const slots = (await (await fetch(`${prose.url}/slots`)).json()) as Array<{ is_processing: boolean }>;
    expect(slots.every((slot: { is_processing: boolean }) => !slot.is_processing)).toBe(true);
  });
});

describe.skipIf(await withoutLlama())("a real llama-server with a small window", () => {
  let small: LlamaServer;
  beforeAll(async () => {
    small = await llamaServer("prose", { ctx: 512 });
  }, LLAMA_START_TIMEOUT);

  test("a prompt over the window is its 400 exceed_context_size_error, a context_limit naming both sizes", async () => {
    const long = request({ messages: [{ role: "user", content: "word ".repeat(2000) }] });
    const { error } = await collect(model(small, { max_tokens: 8 }), long);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).status).toBe("context_limit");
    expect((error as ModelError).message).toMatch(/the prompt \(\d+ tokens\) does not fit the server's context window \(512 tokens\)/);
  });
});
