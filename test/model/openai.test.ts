/**
 * `openai:BASE_URL` against a fake vLLM (test/helpers/vllm.ts: HTTPS under the test CA, a key,
 * vLLM's shapes quoted from its source): which model each request names, that nothing of
 * llama.cpp's own is sent to a server that is not llama.cpp, the window from max_model_len, the
 * prompt cache's figure from OpenAI's usage field, and what vLLM's error bodies become.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ApiKey, type ServerAccess } from "../../src/model/access.ts";
import { LlamaCppModel } from "../../src/model/llamacpp.ts";
import { ModelChoiceError, OpenAiModel } from "../../src/model/openai.ts";
import { ModelOptionsSchema } from "../../src/model/options.ts";
import { ModelError, type ModelRequest } from "../../src/protocol/model.ts";
import { assembled, collect } from "../helpers/model.ts";
import { llamaCppTextScene, startFakeServer } from "../helpers/fake-server.ts";
import { testCertificates, withoutOpenssl } from "../helpers/tls.ts";
import { fakeVllm, type FakeVllm } from "../helpers/vllm.ts";

const KEY = "sk-vllm-openai-test-4c1d2e";
const MODELS = [
  { id: "Qwen/Qwen2.5-Coder-32B-Instruct", max_model_len: 32768 },
  { id: "meta-llama/Llama-3.1-8B-Instruct", max_model_len: 131072 },
];

const options = ModelOptionsSchema.parse({ idle_timeout_seconds: 5 });
const signal = () => new AbortController().signal;
const request = (): ModelRequest => ({ messages: [{ role: "user", content: "Say done." }], tools: [], signal: signal() });

function access(key: string | null = KEY): ServerAccess {
  return { key: key === null ? null : new ApiKey(key, "GLASSBOX_API_KEY"), keyVariable: "GLASSBOX_API_KEY", extraCa: [testCertificates().ca], insecureTls: false };
}

const baseUrl = (server: FakeVllm) => server.url.replace(/\/v1$/, "");
const model = (server: FakeVllm, modelName?: string, reach = access()) => new OpenAiModel(`openai:${server.url}`, baseUrl(server), modelName, options, reach);

describe.skipIf(withoutOpenssl())("openai: against a vLLM server", () => {
  let server: FakeVllm;
  beforeAll(() => {
    server = fakeVllm({ key: KEY, models: MODELS, reply: () => ({ text: "Done here.", promptTokens: 812, cachedTokens: 768 }) });
  });
  afterAll(() => server.stop());

  test("several models and none named: refused, listing their ids, and nothing sent to /chat/completions", async () => {
    const before = server.chats().length;
    const { error } = await collect(model(server), request());
    expect(error).toBeInstanceOf(ModelChoiceError);
    expect(error!.message).toBe(`${baseUrl(server)}/v1/models serves 2 models and none was named; pass --model-name with one of: ${MODELS.map((entry) => entry.id).join(", ")}`);
    expect(server.chats().length).toBe(before);
  });

  test("--model-name: each request names it; no cache_prompt, no /props, no prompt counting; the key on every request", async () => {
    const chosen = model(server, MODELS[1]!.id);
    const before = server.requests.length;
    const { deltas, error } = await collect(chosen, request());
    expect(error).toBeNull();
    expect(assembled(deltas).content).toBe("Done here.");
    expect(await chosen.countPromptTokens(request().messages, [], signal())).toBeNull();
    const seen = server.requests.slice(before);
    expect(seen.map((entry) => entry.path)).toEqual(["/v1/models", "/v1/chat/completions"]);
    const body = seen[1]!.body;
    expect(body.model).toBe(MODELS[1]!.id);
    expect(body).not.toHaveProperty("cache_prompt");
    expect(body.stream_options).toEqual({ include_usage: true });
    for (const entry of seen) expect(entry.authorization).toBe(`Bearer ${KEY}`);
  });

  test("the window is the named model's max_model_len; the cached prompt tokens come from usage.prompt_tokens_details", async () => {
    const chosen = model(server, MODELS[1]!.id);
    expect(await chosen.contextSize(signal())).toBe(131072);
    const reply = assembled((await collect(chosen, request())).deltas);
    expect(reply.prompt_tokens).toBe(812);
    expect(reply.cached_tokens).toBe(768);
  });

  test("a server listing one model: that one, unnamed", async () => {
    const single = fakeVllm({ key: KEY, models: [MODELS[0]!] });
    try {
      const { error } = await collect(model(single), request());
      expect(error).toBeNull();
      expect(single.chats()[0]!.body.model).toBe(MODELS[0]!.id);
    } finally {
      single.stop();
    }
  });

  test("a wrong key and no key: vLLM's 401, named with the variable", async () => {
    const wrong = await collect(model(server, MODELS[0]!.id, access("sk-not-the-right-one-000")), request());
    expect(wrong.error).toBeInstanceOf(ModelError);
    expect(wrong.error!.message).toBe("the server refused the key (HTTP 401): check the key in GLASSBOX_API_KEY");
    const none = await collect(model(server, MODELS[0]!.id, access(null)), request());
    expect(none.error!.message).toBe("the server refused the key (HTTP 401): set GLASSBOX_API_KEY");
  });

  test("a reply refused for its key (the model list not asked, as for llamacpp:URL): the same line", async () => {
    const direct = new LlamaCppModel("llamacpp", baseUrl(server), options, undefined, { llamaCpp: true, access: access("sk-not-the-right-one-000") });
    const { error } = await collect(direct, request());
    expect(error!.message).toBe("the server refused the key (HTTP 401): check the key in GLASSBOX_API_KEY");
  });

  test("a model the server does not serve: vLLM's own message, in either of its error shapes", async () => {
    for (const errorShape of ["nested", "flat"] as const) {
      const shaped = fakeVllm({ key: KEY, models: MODELS, errorShape });
      try {
        const { error } = await collect(model(shaped, "no/such-model"), request());
        expect(error!.message).toBe(`${baseUrl(shaped)}/v1/chat/completions answered HTTP 404: The model \`no/such-model\` does not exist.`);
      } finally {
        shaped.stop();
      }
    }
  });

  test("a server's CA this machine does not trust: one line naming the problem and --ca-file", async () => {
    const untrusted = { ...access(), extraCa: [] };
    const { error } = await collect(model(server, MODELS[0]!.id, untrusted), request());
    expect(error!.message).toMatch(new RegExp(`^cannot reach ${baseUrl(server)}/v1/models over TLS: its certificate is signed by a CA this machine does not trust \\(\\w+\\); trust its CA with --ca-file FILE`));
  });
});

describe("openai: against llama.cpp", () => {
  test("a model list that says llamacpp: its extras are used (cache_prompt, /props)", async () => {
    const scene = llamaCppTextScene("hello");
    const props = { default_generation_settings: { n_ctx: 4096 } };
    const server = startFakeServer((seen) => {
      if (seen.path === "/v1/models") return { status: 200, headers: { "Content-Type": "application/json" }, pieces: [JSON.stringify({ object: "list", data: [{ id: "qwen.gguf", object: "model", owned_by: "llamacpp" }] })] };
      if (seen.path === "/props") return { status: 200, headers: { "Content-Type": "application/json" }, pieces: [JSON.stringify(props)] };
      return scene;
    });
    const llama = new OpenAiModel(`openai:${server.url}`, server.url, undefined, options, access(null));
    expect(await llama.contextSize(signal())).toBe(4096);
    const { error } = await collect(llama, request());
    expect(error).toBeNull();
    const chat = server.requests.find((seen) => seen.path === "/v1/chat/completions")!;
    expect(chat.body.cache_prompt).toBe(true);
    expect(chat.body.model).toBe("qwen.gguf");
  });
});

describe("openai: a prompt over the server's window", () => {
  test("vLLM's 400 for it is a context_limit with the server's own words", async () => {
    // vLLM's message for a prompt over max_model_len (its serving engine's length check; OpenAI's API says the same).
    const words = "This model's maximum context length is 32768 tokens. However, you requested 40960 tokens (39936 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.";
    const server = startFakeServer((seen) =>
      seen.path === "/v1/models"
        ? { status: 200, headers: { "Content-Type": "application/json" }, pieces: [JSON.stringify({ object: "list", data: [{ id: "m", object: "model", owned_by: "vllm", max_model_len: 32768 }] })] }
        : { status: 400, headers: { "Content-Type": "application/json" }, pieces: [JSON.stringify({ error: { message: words, type: "BadRequestError", param: null, code: 400 } })] },
    );
    const { error } = await collect(new OpenAiModel(`openai:${server.url}`, server.url, undefined, options, access(null)), request());
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).status).toBe("context_limit");
    expect(error!.message).toBe(`the server refused the prompt as over its window: ${words}`);
  });
});
