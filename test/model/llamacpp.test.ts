import { expect, test, describe } from "bun:test";
import fs from "node:fs";
import path, { join } from "node:path";
import { LlamaCppModel, contentOnly } from "../../src/model/llamacpp.ts";
import { ModelOptionsSchema } from "../../src/model/options.ts";
import { ModelError, type ModelRequest } from "../../src/protocol/model.ts";
import { assembled, collect as collectFrom } from "../helpers/model.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { WireLog, readWireLog } from "../../src/trace/wire-log.ts";
import { startCacheServer } from "../helpers/cache-server.ts";
import { FIXTURES, llamaCppCapture, readFixture, startFakeServer, type Scene } from "../helpers/fake-server.ts";

const options = (extra: Record<string, unknown> = {}) => ModelOptionsSchema.parse({ idle_timeout_seconds: 1, ...extra });

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    messages: [
      { role: "system", content: "You are a test." },
      { role: "user", content: "What is the weather in Paris?" },
    ],
    tools: [{ name: "get_weather", description: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } }],
    signal: new AbortController().signal,
    ...overrides,
  };
}

const collect = (model: LlamaCppModel, req = request()) => collectFrom(model, req);

function serving(scene: Scene | ((n: number) => Scene)) {
  let n = 0;
  return startFakeServer(() => (typeof scene === "function" ? scene(n++) : scene));
}


describe("llama.cpp adapter against real captures", () => {
  test("a text stream arrives token by token and ends with its finish reason", async () => {
    const server = serving(llamaCppCapture("01-text-stream"));
    const { deltas, error } = await collect(new LlamaCppModel("llamacpp", server.url, options()));
    expect(error).toBeNull();
    // What the capture holds, read independently of the adapter.
    const sent = readFixture("llamacpp-wire/01-text-stream.sse")
      .split("\n")
      .filter((line) => line.startsWith("data: {"))
      .map((line) => JSON.parse(line.slice(6)).choices[0]?.delta?.content)
      .filter((content) => typeof content === "string" && content);
    // Chunks that came in one read are joined into one delta that counts them.
    const texts = deltas.filter((delta) => delta.type === "text");
    expect(texts.reduce((sum, delta) => sum + (delta.chunks ?? 1), 0)).toBe(sent.length);
    const reply = assembled(deltas);
    expect(reply.content).toBe(sent.join(""));
    expect(reply.finish_reason).toBe("stop");
  });

  test("chunks that arrive in reads of their own stay deltas of their own", async () => {
    const server = serving(llamaCppCapture("01-text-stream", 15));
    const { deltas, error } = await collect(new LlamaCppModel("llamacpp", server.url, options()));
    expect(error).toBeNull();
    const texts = deltas.filter((delta) => delta.type === "text");
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.every((delta) => (delta.chunks ?? 1) === 1)).toBe(true);
  });

  test("a streamed tool call is assembled from fragments by index, raw arguments kept", async () => {
    const server = serving(llamaCppCapture("02-tool-required-stream"));
    const { deltas, error } = await collect(new LlamaCppModel("llamacpp", server.url, options()));
    expect(error).toBeNull();
    const reply = assembled(deltas);
    expect(reply.tool_calls.length).toBe(1);
    expect(reply.tool_calls[0]!.name).toBe("get_weather");
    expect(reply.tool_calls[0]!.id).toMatch(/^[A-Za-z0-9]{32}$/);
    const args = JSON.parse(reply.tool_calls[0]!.arguments as string);
    expect(["Paris", "Tokyo"]).toContain(args.city);
    expect(reply.finish_reason).toBe("tool_calls");
  });

  test("three parallel calls and the usage chunk", async () => {
    const server = serving(llamaCppCapture("09-tool-result-followup-stream"));
    const { deltas, error } = await collect(new LlamaCppModel("llamacpp", server.url, options()));
    expect(error).toBeNull();
    const reply = assembled(deltas);
    expect(reply.tool_calls.length).toBe(3);
    for (const call of reply.tool_calls) expect(() => JSON.parse(call.arguments as string)).not.toThrow();
    expect(reply.prompt_tokens).toBe(354);
    expect(reply.gen_tokens).toBe(201);
    expect(reply.tokens_per_second).toBeCloseTo(75.078, 2);
  });

  test("a prompt over the window is context_limit with both numbers, even when streaming", async () => {
    const server = serving(llamaCppCapture("05b-overflow-stream"));
    const { error } = await collect(new LlamaCppModel("llamacpp", server.url, options()));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).status).toBe("context_limit");
    expect(error!.message).toContain("10030");
    expect(error!.message).toContain("4096");
  });

  test("an error after streaming began, with no [DONE], is a model error keeping the partial text", async () => {
    const server = serving(llamaCppCapture("12-midstream-error"));
    const { deltas, error } = await collect(new LlamaCppModel("llamacpp", server.url, options()));
    expect(deltas.filter((delta) => delta.type === "text").reduce((sum, delta) => sum + (delta.type === "text" ? (delta.chunks ?? 1) : 0), 0)).toBe(26);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).status).toBe("model_error");
    expect(error!.message).toContain("peg-native");
  });

  test("an HTTP 500 names the status and the server's message, not 'unreachable'", async () => {
    const server = serving(llamaCppCapture("04-error-bad-json"));
    const { error } = await collect(new LlamaCppModel("llamacpp", server.url, options()));
    expect(error!.message).toContain("HTTP 500");
    expect(error!.message).not.toMatch(/cannot reach|unreachable/);
  });

  test("finish_reason length is reported", async () => {
    const server = serving(llamaCppCapture("06-length"));
    const reply = assembled((await collect(new LlamaCppModel("llamacpp", server.url, options()))).deltas);
    expect(reply.finish_reason).toBe("length");
  });

  test("an older server that cannot stream tools: falls back to one unstreamed request, says so once", async () => {
    const server = serving((n) =>
      n === 0
        ? { status: 500, headers: { "Content-Type": "application/json" }, pieces: ['{"error":{"code":500,"message":"Cannot use tools with stream","type":"server_error"}}'] }
        : llamaCppCapture("07b-nonstream-tool-required"),
    );
    const model = new LlamaCppModel("llamacpp", server.url, options());
    const first = await collect(model);
    expect(first.error).toBeNull();
    expect(first.deltas.filter((delta) => delta.type === "notice").length).toBe(1);
    expect(assembled(first.deltas).tool_calls.length).toBe(1);
    expect(server.requests.map((seen) => seen.body.stream)).toEqual([true, false]);
    const second = await collect(model);
    expect(second.deltas.filter((delta) => delta.type === "notice").length).toBe(0);
    expect(server.requests.at(-1)!.body.stream).toBe(false);
  });
});

describe("llama.cpp request body", () => {
  test("sends stream, usage, the reply cap, sampling knobs, template kwargs and extra_body", async () => {
    const server = serving(llamaCppCapture("03-usage"));
    const model = new LlamaCppModel("llamacpp", server.url, options({ temperature: 0.2, seed: 7, think: false, tool_choice: "required", extra_body: { logit_bias: { "50258": 1.5 } } }));
    await collect(model);
    const body = server.requests[0]!.body;
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.cache_prompt).toBe(true);
    expect(body.max_tokens).toBe(1024);
    expect(body.temperature).toBe(0.2);
    expect(body.seed).toBe(7);
    expect(body.tool_choice).toBe("required");
    expect(body.chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(body.logit_bias).toEqual({ "50258": 1.5 });
    expect(body.tools[0].function.name).toBe("get_weather");
  });

  test("the same conversation gives a byte-identical body", async () => {
    const server = serving(llamaCppCapture("03-usage"));
    const model = new LlamaCppModel("llamacpp", server.url, options({ seed: 1 }));
    await collect(model);
    await collect(model);
    expect(server.requests[0]!.raw).toBe(server.requests[1]!.raw);
  });

  test("/props gives the real context size", async () => {
    const props = readFixture("llamacpp-wire/00-props.json");
    const server = startFakeServer(() => ({ status: 200, headers: { "Content-Type": "application/json" }, pieces: [props] }));
    const model = new LlamaCppModel("llamacpp", server.url, options());
    expect(await model.contextSize(new AbortController().signal)).toBe(4096);
  });
});

describe("llama.cpp failures", () => {
  test("connection refused names the address", async () => {
    const server = serving(llamaCppCapture("01-text-stream"));
    const url = server.url;
    server.stop();
    const { error } = await collect(new LlamaCppModel("llamacpp", url, options()));
    expect(error!.message).toContain(url);
    expect(error!.message).toContain("connection refused");
  });

  test("a host that does not resolve is named as such", async () => {
    const { error } = await collect(new LlamaCppModel("llamacpp", "http://no-such-host.invalid:8080", options()));
    expect(error).toBeInstanceOf(ModelError);
    expect(error!.message).toContain("http://no-such-host.invalid:8080");
    expect(error!.message).toContain("does not resolve");
  });

  test("a slow trickle within the idle timeout is not a stall", async () => {
    const capture = llamaCppCapture("01-text-stream", 60);
    const server = serving(capture);
    const { deltas, error } = await collect(new LlamaCppModel("llamacpp", server.url, options({ idle_timeout_seconds: 0.3 })));
    expect(error).toBeNull();
    expect(assembled(deltas).finish_reason).toBe("stop");
  });

  test("a connection cut inside a tool call's arguments says so", async () => {
    const capture = llamaCppCapture("02-tool-required-stream");
    // The pause lets the partial call arrive before the connection drops (as it would from a real server mid-generation).
    const server = serving({ ...capture, pieces: [...capture.pieces.slice(0, 4), 100], after: "cut" });
    const { error } = await collect(new LlamaCppModel("llamacpp", server.url, options()));
    expect(error).toBeInstanceOf(ModelError);
    expect(error!.message).toContain("closed the connection");
    expect(error!.message).toContain("a tool call was cut off in the middle of its arguments");
  });

  test("a stream that ends without [DONE] is an error", async () => {
    const capture = llamaCppCapture("01-text-stream");
    const server = serving({ ...capture, pieces: capture.pieces.slice(0, 5) });
    const { error } = await collect(new LlamaCppModel("llamacpp", server.url, options()));
    expect(error!.message).toContain("without [DONE]");
  });

  test("a garbage event is an error naming it", async () => {
    const server = serving({ status: 200, headers: { "Content-Type": "text/event-stream" }, pieces: ["data: {not json\n\n"] });
    const { error } = await collect(new LlamaCppModel("llamacpp", server.url, options()));
    expect(error!.message).toContain("not valid JSON");
  });

  test("a stalled stream ends within the idle timeout; keep-alive comments keep it alive", async () => {
    const capture = llamaCppCapture("01-text-stream");
    const stalled = serving({ ...capture, pieces: capture.pieces.slice(0, 3), after: "hang" });
    const started = performance.now();
    const { error } = await collect(new LlamaCppModel("llamacpp", stalled.url, options({ idle_timeout_seconds: 0.3 })));
    expect(error!.message).toContain("stalled");
    expect(performance.now() - started).toBeLessThan(3000);

    const kept = serving({ ...capture, pieces: [":\n\n", 200, ":\n\n", 200, ":\n\n", 200, ...capture.pieces] });
    const alive = await collect(new LlamaCppModel("llamacpp", kept.url, options({ idle_timeout_seconds: 0.35 })));
    expect(alive.error).toBeNull();
  });

  test("an abort stops the request at once and is not dressed up as a server error", async () => {
    const capture = llamaCppCapture("01-text-stream");
    const server = serving({ ...capture, pieces: capture.pieces.slice(0, 3), after: "hang" });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const started = performance.now();
    const { deltas, error } = await collect(new LlamaCppModel("llamacpp", server.url, options({ idle_timeout_seconds: 30 })), request({ signal: abort.signal }));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(error).not.toBeInstanceOf(ModelError);
    expect(deltas.length).toBeGreaterThan(0);
  });
});

test("the wire log holds each request before the response, and the assembled response", async () => {
  const server = serving(llamaCppCapture("09-tool-result-followup-stream"));
  const path = join(tempFolder("wire"), "wire.jsonl");
  await collect(new LlamaCppModel("llamacpp", server.url, options(), new WireLog(path)));
  const entries = readWireLog(path);
  expect(entries.map((entry) => entry.kind)).toEqual(["request", "response"]);
  expect((entries[0] as any).body).toEqual(server.requests[0]!.body);
  const response = entries[1] as any;
  expect(response.message.tool_calls.length).toBe(3);
  expect(response.usage).toEqual({ prompt_tokens: 354, gen_tokens: 201 });
  expect(response.finish_reason).toBe("tool_calls");
  expect(response.timings.predicted_n).toBe(201);
});

test("the request is in the wire log at the moment it reaches the server, not only after", async () => {
  const path = join(tempFolder("wire"), "wire.jsonl");
  const loggedOnArrival: boolean[] = [];
  const server = startFakeServer((seen) => {
    // Read while the request is arriving: a log written after the send would not hold it yet.
    loggedOnArrival.push(readWireLog(path).some((entry) => entry.kind === "request" && JSON.stringify(entry.body) === JSON.stringify(seen.body)));
    return llamaCppCapture("01-text-stream");
  });
  await collect(new LlamaCppModel("llamacpp", server.url, options(), new WireLog(path)));
  expect(loggedOnArrival).toEqual([true]);
});

describe("reading a text-only chunk without parsing it whole", () => {
  const captures = fs.readdirSync(path.join(FIXTURES, "llamacpp-wire")).filter((name) => name.endsWith(".sse"));

  test("on every chunk of every capture it agrees with JSON.parse, or leaves the chunk to it", () => {
    let read = 0;
    for (const name of captures) {
      for (const line of readFixture(`llamacpp-wire/${name}`).split("\n")) {
        if (!line.startsWith("data: {")) continue;
        const data = line.slice(6);
        const chunk = JSON.parse(data);
        const text = contentOnly(data);
        if (text === null) continue;
        read++;
        expect(chunk.choices[0].delta).toEqual({ content: text });
        expect(chunk.choices[0].finish_reason).toBeNull();
        expect(chunk.usage ?? chunk.timings ?? chunk.error).toBeUndefined();
      }
    }
    expect(read).toBeGreaterThan(50);
  });

  const envelope = (delta: string, rest = ',"created":1,"id":"x","model":"m","object":"chat.completion.chunk"}') => `{"choices":[{"finish_reason":null,"index":0,"delta":{"content":${delta}}}]${rest}`;

  test("escapes and quotes inside the text are read as JSON reads them", () => {
    for (const text of ['say "hi"', "a\\b", "tab\there", "line\nbreak", "\\", '\\"', "é ✓ 幅", "</script>"]) {
      expect(contentOnly(envelope(JSON.stringify(text)))).toBe(text);
    }
  });

  test("anything but a text-only chunk is left to the full parse", () => {
    expect(contentOnly(envelope('"x"', ',"usage":{"completion_tokens":1}}'))).toBeNull();
    expect(contentOnly(envelope('"x"', ',"timings":{}}'))).toBeNull();
    expect(contentOnly(envelope('"x"', ',"error":{"message":"boom"}}'))).toBeNull();
    expect(contentOnly(envelope('"x"', ',"created":1'))).toBeNull(); // cut short
    expect(contentOnly('{"choices":[{"finish_reason":"stop","index":0,"delta":{"content":"x"}}]}')).toBeNull();
    expect(contentOnly('{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"x","tool_calls":[]}}]}')).toBeNull();
    expect(contentOnly('{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"x"}},{"index":1}]}')).toBeNull();
    expect(contentOnly(envelope('"raw\u0001control"'))).toBeNull();
    expect(contentOnly(envelope('"unterminated'))).toBeNull();
  });
});

/** An older llama-server that cannot stream tool calls, answering unstreamed with this completion. */
function unstreamed(completion: unknown) {
  return serving((n) =>
    n === 0
      ? { status: 500, headers: { "Content-Type": "application/json" }, pieces: ['{"error":{"code":500,"message":"Cannot use tools with stream","type":"server_error"}}'] }
      : { status: 200, headers: { "Content-Type": "application/json" }, pieces: [JSON.stringify(completion)] },
  );
}

describe("the prompt cache's figures", () => {
  // Field names from the real captures (shared/fixtures/llamacpp-wire/03-usage.sse, 07-nonstream-text.json) and
  // llama.cpp's server source (tools/server: result_timings::to_json writes "cache_n" and "prompt_ms").
  test("cached_tokens from timings.cache_n, prefill_ms from timings.prompt_ms, in a stream and unstreamed", async () => {
    const streamed = serving(llamaCppCapture("03-usage"));
    const fromStream = assembled((await collect(new LlamaCppModel("llamacpp", streamed.url, options()))).deltas);
    const usageLine = readFixture("llamacpp-wire/03-usage.sse").split("\n").filter((line) => line.includes('"timings"')).at(-1)!;
    const timings = JSON.parse(usageLine.slice(6)).timings;
    expect(fromStream.cached_tokens).toBe(timings.cache_n);
    expect(fromStream.prefill_ms).toBe(timings.prompt_ms);
    expect(fromStream.cached_tokens).toBe(22);

    const whole = JSON.parse(readFixture("llamacpp-wire/07-nonstream-text.json"));
    const fromJson = assembled((await collect(new LlamaCppModel("llamacpp", unstreamed(whole).url, options()))).deltas);
    expect(fromJson.cached_tokens).toBe(whole.timings.cache_n);
    expect(fromJson.prefill_ms).toBe(whole.timings.prompt_ms);
  });

  test("without timings, usage.prompt_tokens_details.cached_tokens; with neither, both null", async () => {
    const whole = JSON.parse(readFixture("llamacpp-wire/07-nonstream-text.json"));
    const { timings: _dropped, ...openAiOnly } = whole;
    const reply = assembled((await collect(new LlamaCppModel("llamacpp", unstreamed(openAiOnly).url, options()))).deltas);
    expect(reply.cached_tokens).toBe(whole.usage.prompt_tokens_details.cached_tokens);
    expect(reply.prefill_ms).toBeNull();

    const { prompt_tokens_details: _gone, ...bareUsage } = whole.usage;
    const none = assembled((await collect(new LlamaCppModel("llamacpp", unstreamed({ ...openAiOnly, usage: bareUsage }).url, options()))).deltas);
    expect(none.cached_tokens).toBeNull();
    expect(none.prefill_ms).toBeNull();
  });

  test("a server that keeps its cache reports the shared prefix as cached", async () => {
    const server = startCacheServer(8192, () => ({ text: "ok" }));
    try {
      const model = new LlamaCppModel("llamacpp", server.url, options());
      const first = assembled((await collect(model)).deltas);
      const longer = request();
      longer.messages.push({ role: "assistant", content: "ok" }, { role: "user", content: "And in Rome?" });
      const second = assembled((await collect(model, longer)).deltas);
      expect(first.cached_tokens).toBe(0);
      // The whole first prompt but its last characters is shared: the second reuses nearly all of it.
      expect(second.cached_tokens).toBe(server.records[1]!.cachedTokens);
      expect(second.cached_tokens!).toBeGreaterThan(server.records[0]!.promptTokens - 5);
      expect(second.prefill_ms).toBeGreaterThan(0);
    } finally {
      server.stop();
    }
  });
});
