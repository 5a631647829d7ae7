import { expect, test, describe } from "bun:test";
import { OllamaModel } from "../../src/model/ollama.ts";
import { ModelOptionsSchema } from "../../src/model/options.ts";
import { ModelError, type ModelRequest } from "../../src/protocol/model.ts";
import { assembled, collect as collectFrom } from "../helpers/model.ts";
import { ollamaExample, readFixture, startFakeServer, type Scene } from "../helpers/fake-server.ts";

const options = (extra: Record<string, unknown> = {}) => ModelOptionsSchema.parse({ idle_timeout_seconds: 1, ...extra });

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    messages: [
      { role: "system", content: "You are a test." },
      { role: "user", content: "Read the notes." },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "read_file", arguments: '{"path": "NOTES.md"}' }] },
      { role: "tool", tool_call_id: "c1", name: "read_file", content: "notes" },
    ],
    tools: [{ name: "read_file", description: "read", parameters: { type: "object", properties: { path: { type: "string" } } } }],
    signal: new AbortController().signal,
    ...overrides,
  };
}

const collect = (model: OllamaModel, req = request()) => collectFrom(model, req);


const model = (url: string, extra: Record<string, unknown> = {}) => new OllamaModel("ollama:qwen2.5:1.5b", "qwen2.5:1.5b", url, options(extra));
const serve = (scene: Scene) => startFakeServer(() => scene);

describe("Ollama adapter against the documented stream shapes", () => {
  test("text arrives piece by piece; the done line gives usage and the finish reason", async () => {
    const server = serve(ollamaExample("01-text-stream"));
    const { deltas, error } = await collect(model(server.url));
    expect(error).toBeNull();
    const lines = readFixture("ollama-ndjson/01-text-stream.ndjson").trim().split("\n").map((line) => JSON.parse(line));
    const reply = assembled(deltas);
    expect(reply.content).toBe(lines.map((line) => line.message.content).join(""));
    const last = lines.at(-1);
    expect(reply.prompt_tokens).toBe(last.prompt_eval_count);
    expect(reply.gen_tokens).toBe(last.eval_count);
    expect(reply.finish_reason).toBe(last.done_reason);
  });

  test("thinking is its own channel", async () => {
    const server = serve(ollamaExample("02-thinking-stream"));
    const reply = assembled((await collect(model(server.url))).deltas);
    expect(reply.thinking).toContain("The user wants the time.");
  });

  test("whole tool calls with object arguments; ids synthesised when missing, kept when sent", async () => {
    const single = serve(ollamaExample("03-tool-call-stream"));
    const one = assembled((await collect(model(single.url))).deltas);
    expect(one.tool_calls).toEqual([{ id: "s1c1", name: "read_file", arguments: { path: "src/compare.ts", max_lines: 50 } }]);
    const double = serve(ollamaExample("04-two-tool-calls-with-ids"));
    const two = assembled((await collect(model(double.url))).deltas);
    expect(two.tool_calls.map((call) => [call.id, (call.arguments as any).path])).toEqual([
      ["call_a1", "NOTES.md"],
      ["call_a2", "README.md"],
    ]);
  });

  test("the reply cap hit is finish reason length", async () => {
    const server = serve(ollamaExample("05-length"));
    expect(assembled((await collect(model(server.url))).deltas).finish_reason).toBe("length");
  });

  test("an error line mid-stream is a model error keeping what came before", async () => {
    const server = serve(ollamaExample("06-midstream-error"));
    const { error } = await collect(model(server.url));
    expect(error).toBeInstanceOf(ModelError);
    expect(error!.message).toContain("unexpected EOF");
  });

  test("a 404 for an unknown model says how to pull it", async () => {
    const server = serve(ollamaExample("07-model-not-found"));
    const { error } = await collect(new OllamaModel("ollama:qwen9:1b", "qwen9:1b", server.url, options()));
    expect(error!.message).toContain("model qwen9:1b is not pulled");
    expect(error!.message).toContain("ollama pull qwen9:1b");
  });

  test("a stream that ends without its done line, or with a garbage line, is an error", async () => {
    const example = ollamaExample("01-text-stream");
    const short = serve({ ...example, pieces: example.pieces.slice(0, 2) });
    expect((await collect(model(short.url))).error!.message).toContain('without its final "done" line');
    const garbage = serve({ ...example, pieces: [example.pieces[0]!, "<html>oops</html>\n"] });
    expect((await collect(model(garbage.url))).error!.message).toContain("not valid JSON");
  });

  test("a stall ends within the idle timeout", async () => {
    const example = ollamaExample("01-text-stream");
    const server = serve({ ...example, pieces: example.pieces.slice(0, 1), after: "hang" });
    const started = performance.now();
    const { error } = await collect(model(server.url, { idle_timeout_seconds: 0.3 }));
    expect(error!.message).toContain("stalled");
    expect(performance.now() - started).toBeLessThan(3000);
  });
});

describe("Ollama request body", () => {
  test("always sends num_ctx; maps the reply cap, seed, temperature and think; merges extra_body", async () => {
    const server = serve(ollamaExample("01-text-stream"));
    await collect(model(server.url, { seed: 3, temperature: 0.1, think: true, extra_body: { keep_alive: "5m" } }));
    const body = server.requests[0]!.body;
    expect(body.model).toBe("qwen2.5:1.5b");
    expect(body.stream).toBe(true);
    expect(body.options).toEqual({ num_ctx: 8192, num_predict: 1024, temperature: 0.1, seed: 3 });
    expect(body.think).toBe(true);
    expect(body.keep_alive).toBe("5m");
  });

  test("tool-call arguments go back as objects, tool results name their tool", async () => {
    const server = serve(ollamaExample("01-text-stream"));
    await collect(model(server.url));
    const messages = server.requests[0]!.body.messages;
    expect(messages[2].tool_calls[0].function.arguments).toEqual({ path: "NOTES.md" });
    expect(messages[3]).toEqual({ role: "tool", content: "notes", tool_name: "read_file" });
  });

  test("/api/show bounds the window this client asks for", async () => {
    const show = readFixture("ollama-ndjson/09-show.json");
    const server = serve({ status: 200, headers: { "Content-Type": "application/json" }, pieces: [show] });
    const trained = JSON.parse(show).model_info["qwen2.context_length"];
    expect(await model(server.url, { num_ctx: 4096 }).contextSize(new AbortController().signal)).toBe(Math.min(4096, trained));
    expect(await model(server.url, { num_ctx: 1_000_000 }).contextSize(new AbortController().signal)).toBe(trained);
    expect(server.requests[0]!.body).toEqual({ model: "qwen2.5:1.5b" });
  });
});

describe("the prompt cache's figures", () => {
  test("Ollama says no cache figure: cached_tokens is null, prefill_ms is prompt_eval_duration in milliseconds", async () => {
    const server = serve(ollamaExample("01-text-stream"));
    const reply = assembled((await collect(model(server.url))).deltas);
    const last = readFixture("ollama-ndjson/01-text-stream.ndjson").trim().split("\n").map((line) => JSON.parse(line)).at(-1);
    expect(reply.cached_tokens).toBeNull();
    expect(reply.prefill_ms).toBe(last.prompt_eval_duration / 1e6);
    expect(reply.prefill_ms).toBe(301);
  });
});
