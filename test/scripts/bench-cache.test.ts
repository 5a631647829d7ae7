import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { LlamaCppModel } from "../../src/model/llamacpp.ts";
import { ModelOptionsSchema } from "../../src/model/options.ts";
import type { ModelRequest } from "../../src/protocol/model.ts";
import { startCacheProxy } from "../helpers/cache-proxy.ts";
import { readFixture, startFakeServer, type Scene } from "../helpers/fake-server.ts";
import { assembled, collect } from "../helpers/model.ts";
import { withoutLlama } from "../helpers/llama.ts";

// scripts/bench-cache.ts --server puts test/helpers/cache-proxy.ts between glassbox and a real
// llama-server; here a fake plays the real server, to pin what the proxy sends it and answers.

const json = (body: unknown, status = 200): Scene => ({ status, headers: { "Content-Type": "application/json" }, pieces: [JSON.stringify(body)] });
/** What llama-server answers an unstreamed one-token request: its usage and timings are what the proxy reads. */
const completion = json({
  choices: [{ finish_reason: "length", index: 0, message: { role: "assistant", content: "x" } }],
  usage: { completion_tokens: 1, prompt_tokens: 2740, total_tokens: 2741 },
  timings: { cache_n: 2281, prompt_n: 459, prompt_ms: 48.5, predicted_n: 1 },
});

function realServer(chat: Scene = completion) {
  const props = JSON.parse(readFixture("llamacpp-wire/00-props.json"));
  return startFakeServer((request) => {
    if (request.path === "/props") return json(props);
    if (request.path === "/health") return json({ status: "ok" });
    return chat;
  });
}

const request: ModelRequest = {
  messages: [
    { role: "system", content: "You are a test." },
    { role: "user", content: "Read the notes." },
  ],
  tools: [{ name: "read_file", description: "read", parameters: { type: "object", properties: { path: { type: "string" } } } }],
  signal: new AbortController().signal,
};
const model = (url: string) => new LlamaCppModel("llamacpp", url, ModelOptionsSchema.parse({ idle_timeout_seconds: 5 }));

test("the prompt goes to the real server for one token, unstreamed; the adapter gets the script's reply with the server's figures", async () => {
  const real = realServer();
  const proxy = startCacheProxy(8192, real.url, () => ({ call: { name: "read_file", arguments: { path: "notes/file-01.md" } } }));
  try {
    const { deltas, error } = await collect(model(proxy.url), request);
    expect(error).toBeNull();
    const sent = real.requests.find((seen) => seen.path === "/v1/chat/completions")!.body;
    expect(sent).toMatchObject({ stream: false, max_tokens: 1, cache_prompt: true, messages: [{ role: "system" }, { role: "user", content: "Read the notes." }] });
    expect(sent.tools[0].function.name).toBe("read_file");
    expect(sent.stream_options).toBeUndefined();
    const reply = assembled(deltas);
    expect(reply.tool_calls.map((call) => [call.name, call.arguments])).toEqual([["read_file", JSON.stringify({ path: "notes/file-01.md" })]]);
    expect(deltas.find((delta) => delta.type === "usage")).toMatchObject({ prompt_tokens: 2740, cached_tokens: 2281, prefill_ms: 48.5 });
    expect(proxy.records).toEqual([{ promptTokens: 2740, processed: 459, cached: 2281, prefillMs: 48.5, messages: sent.messages }]);
  } finally {
    proxy.stop();
  }
});

test("/props tells the bench's window, the rest as the real server says; other paths pass through", async () => {
  const real = realServer();
  const proxy = startCacheProxy(16384, real.url, () => ({ text: "unused" }));
  try {
    const props = (await (await fetch(`${proxy.url}/props`)).json()) as any;
    expect(props.default_generation_settings.n_ctx).toBe(16384);
    expect(props.build_info).toBe("b0-82bb485");
    expect(await model(proxy.url).contextSize(new AbortController().signal)).toBe(16384);
    expect(await (await fetch(`${proxy.url}/health`)).json()).toEqual({ status: "ok" });
  } finally {
    proxy.stop();
  }
});

test("a prompt the real server refuses comes back as its refusal, and is not recorded", async () => {
  const refusal = { error: { code: 400, message: "request (9000 tokens) exceeds the available context size (8192 tokens)", type: "exceed_context_size_error", n_prompt_tokens: 9000, n_ctx: 8192 } };
  const real = realServer(json(refusal, 400));
  const proxy = startCacheProxy(8192, real.url, () => ({ text: "unused" }));
  try {
    const { error } = await collect(model(proxy.url), request);
    expect(error?.message).toContain("the prompt (9000 tokens) does not fit the server's context window (8192 tokens)");
    expect(proxy.records).toEqual([]);
  } finally {
    proxy.stop();
  }
});

// The cache's figures as the real server counts them, in every test run, so no change can lose the
// cache unnoticed: the bench exits 1 when a window's reprocessed tokens pass 1.35 times the content's.
describe.skipIf(await withoutLlama())("bench:cache --server, against a real llama-server", () => {
  test("reprocesses at most 1.35 tokens per content token at 8k, 16k and 32k", async () => {
    const bench = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "scripts", "bench-cache.ts"), "--server"], {
      // The bench runs as a script, not under bun test (whose NODE_ENV its fake servers read).
      env: { ...process.env, NODE_ENV: "production" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(bench.stdout).text(), new Response(bench.stderr).text(), bench.exited]);
    const rows = out.split("\n").filter((line) => /^\| \d/.test(line));
    expect(rows.map((row) => row.split("|")[1]!.trim())).toEqual(["8,192", "16,384", "32,768"]);
    for (const row of rows) expect(Number(row.split("|")[5])).toBeLessThanOrEqual(1.35);
    expect({ code, err: err.slice(-500) }).toEqual({ code: 0, err: expect.any(String) });
  }, 300_000);
});
