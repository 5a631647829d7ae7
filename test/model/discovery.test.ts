import { expect, test } from "bun:test";
import { discoverModels, type DiscoveryOptions } from "../../src/model/discovery.ts";
import { closedAddress, fakeOllama, llamaCppServer, llamaCppTextScene, ollamaExample, startFakeServer, type Scene } from "../helpers/fake-server.ts";

const TWO_MODELS = [
  { name: "qwen2.5:1.5b", size: 986061892, contextLength: 32768 },
  { name: "qwen3:4b", size: 2497293918, contextLength: 40960 },
];

test("Ollama on 127.0.0.1: every installed model with its size and context length; a silent llama.cpp is named", async () => {
  const ollama = fakeOllama(TWO_MODELS, () => ollamaExample("01-text-stream"));
  const llamacpp = closedAddress();
  const found = await discoverModels({ llamacppUrl: llamacpp, ollamaUrl: ollama.url });
  expect(found.candidates).toEqual([
    { server: "ollama", spec: "ollama:qwen2.5:1.5b", name: "qwen2.5:1.5b", baseUrl: ollama.url, size: 986061892, contextLength: 32768, tools: true },
    { server: "ollama", spec: "ollama:qwen3:4b", name: "qwen3:4b", baseUrl: ollama.url, size: 2497293918, contextLength: 40960, tools: true },
  ]);
  expect(found.servers).toEqual([
    { server: "llamacpp", url: llamacpp, answered: false, problem: "connection refused" },
    { server: "ollama", url: ollama.url, answered: true, problem: null },
  ]);
  // Asked what Ollama has, never to run anything.
  expect(ollama.requests.map((request) => `${request.method} ${request.path} ${request.body?.model ?? ""}`.trim()).sort()).toEqual(["GET /api/tags", "POST /api/show qwen2.5:1.5b", "POST /api/show qwen3:4b"]);
});

test("llama.cpp on 127.0.0.1: its loaded model, size from /v1/models, the real window from /props", async () => {
  const llamacpp = llamaCppServer(() => llamaCppTextScene("unused"));
  const found = await discoverModels({ llamacppUrl: llamacpp.url, ollamaUrl: closedAddress() });
  expect(found.candidates).toEqual([
    { server: "llamacpp", spec: `llamacpp:${llamacpp.url}`, name: "models/tiny-32k.gguf", baseUrl: llamacpp.url, size: 13130752, contextLength: 4096, tools: true },
  ]);
  expect(found.servers[1]).toMatchObject({ server: "ollama", answered: false, problem: "connection refused" });
  expect(llamacpp.requests.some((request) => request.path.includes("chat"))).toBe(false);
});

test("both servers answering: llama.cpp's model first, then Ollama's", async () => {
  const llamacpp = llamaCppServer(() => llamaCppTextScene("unused"));
  const ollama = fakeOllama(TWO_MODELS.slice(0, 1), () => ollamaExample("01-text-stream"));
  const found = await discoverModels({ llamacppUrl: llamacpp.url, ollamaUrl: ollama.url });
  expect(found.candidates.map((candidate) => candidate.spec)).toEqual([`llamacpp:${llamacpp.url}`, "ollama:qwen2.5:1.5b"]);
});

test("both are asked at the same time, and a server that never answers is cut off at the timeout", async () => {
  const asked: string[] = [];
  const timers: Array<() => void> = [];
  const options: DiscoveryOptions = {
    llamacppUrl: "http://llama.test",
    ollamaUrl: "http://ollama.test",
    timeoutMs: 1500,
    // A server that accepts and then says nothing: only the abort ends the request.
    fetch: (url, init) => {
      asked.push(url);
      return new Promise((_, reject) => init.signal!.addEventListener("abort", () => reject(new Error("aborted"))));
    },
    wait: () => new Promise((resolve) => void timers.push(resolve)),
  };
  const pending = discoverModels(options);
  await Bun.sleep(0);
  // Before any time passes, all three first questions are out: llama.cpp's two and Ollama's tags.
  expect(asked.sort()).toEqual(["http://llama.test/props", "http://llama.test/v1/models", "http://ollama.test/api/tags"]);
  expect(timers).toHaveLength(2); // one limit per server
  for (const timeUp of timers) timeUp();
  const found = await pending;
  expect(found.candidates).toEqual([]);
  expect(found.servers.map((server) => [server.answered, server.problem])).toEqual([
    [false, "no answer within 1500 ms"],
    [false, "no answer within 1500 ms"],
  ]);
});

test("an embedding model is not offered; a model /api/show cannot describe is, its context unknown", async () => {
  const ollama = fakeOllama(
    [
      { name: "nomic-embed-text:latest", size: 274302450, contextLength: 2048, capabilities: ["embedding"] },
      { name: "qwen2.5:1.5b", size: 986061892, contextLength: 32768, capabilities: ["completion"] },
    ],
    () => ollamaExample("01-text-stream"),
  );
  // An Ollama whose one model's /api/show fails.
  const answers = startFakeServer((request): Scene => {
    if (request.path === "/api/show" && request.body?.model === "ghost:1b") return { status: 500, headers: {}, pieces: ['{"error":"manifest missing"}'] };
    if (request.path === "/api/tags") return { status: 200, headers: { "Content-Type": "application/json" }, pieces: [JSON.stringify({ models: [{ name: "ghost:1b", size: 1000 }] })] };
    return { status: 404, headers: {}, pieces: [] };
  });
  const found = await discoverModels({ llamacppUrl: closedAddress(), ollamaUrl: ollama.url });
  expect(found.candidates.map((candidate) => [candidate.name, candidate.tools])).toEqual([["qwen2.5:1.5b", false]]);
  const ghost = await discoverModels({ llamacppUrl: closedAddress(), ollamaUrl: answers.url });
  expect(ghost.candidates).toEqual([{ server: "ollama", spec: "ollama:ghost:1b", name: "ghost:1b", baseUrl: answers.url, size: 1000, contextLength: null, tools: null }]);
});

test("an Ollama with nothing pulled, and something else on Ollama's port, each say why they gave no model", async () => {
  const empty = fakeOllama([], () => ollamaExample("01-text-stream"));
  const other = startFakeServer(() => ({ status: 404, headers: { "Content-Type": "text/html" }, pieces: ["<h1>not here</h1>"] }));
  const [none, notOllama] = await Promise.all([
    discoverModels({ llamacppUrl: closedAddress(), ollamaUrl: empty.url }),
    discoverModels({ llamacppUrl: other.url, ollamaUrl: other.url.replace("127.0.0.1", "localhost") }),
  ]);
  expect(none.servers[1]).toEqual({ server: "ollama", url: empty.url, answered: true, problem: "no chat model installed" });
  expect(notOllama.candidates).toEqual([]);
  expect(notOllama.servers.map((server) => server.problem)).toEqual(["HTTP 404 from /v1/models", "HTTP 404 from /api/tags"]);
});

test("one address that is Ollama is listed once, as Ollama, though it also answers the OpenAI /v1/models", async () => {
  const ollama = startFakeServer((request): Scene => {
    const body =
      request.path === "/api/tags"
        ? { models: [{ name: "qwen3:4b", size: 2497293918 }] }
        : request.path === "/v1/models"
          ? { object: "list", data: [{ id: "qwen3:4b", object: "model", owned_by: "library" }] }
          : request.path === "/api/show"
            ? { model_info: { "qwen3.context_length": 40960 }, capabilities: ["completion", "tools"] }
            : null;
    return body ? { status: 200, headers: { "Content-Type": "application/json" }, pieces: [JSON.stringify(body)] } : { status: 404, headers: {}, pieces: ["404 page not found"] };
  });
  const found = await discoverModels({ llamacppUrl: ollama.url, ollamaUrl: ollama.url });
  expect(found.candidates.map((candidate) => candidate.spec)).toEqual(["ollama:qwen3:4b"]);
  expect(found.servers.map((server) => server.server)).toEqual(["ollama"]);
});

test("OpenAI-compatible servers at their usual addresses: each model listed with the kind that answered; one that wants a key says so", async () => {
  // vLLM's /v1/models shape (vllm/entrypoints/openai/protocol.py ModelCard: id, object "model", owned_by "vllm", max_model_len).
  const models = { object: "list", data: ["Qwen/Qwen2.5-Coder-32B-Instruct", "Qwen/Qwen3-8B"].map((id) => ({ id, object: "model", created: 1764806400, owned_by: "vllm", root: id, parent: null, max_model_len: 32768 })) };
  const vllm = startFakeServer((request) => (request.path === "/v1/models" ? { status: 200, headers: { "Content-Type": "application/json" }, pieces: [JSON.stringify(models)] } : { status: 404, headers: { "Content-Type": "text/plain" }, pieces: ["not found"] }));
  const locked = startFakeServer(() => ({ status: 401, headers: { "Content-Type": "application/json" }, pieces: ['{"error":"Unauthorized"}'] }));
  const found = await discoverModels({ llamacppUrl: closedAddress(), ollamaUrl: closedAddress(), openaiUrls: [{ kind: "vLLM", url: vllm.url }, { kind: "LM Studio", url: locked.url }] });
  expect(found.candidates).toEqual(
    models.data.map((model) => ({ server: "openai", kind: "vLLM", modelName: model.id, spec: `openai:${vllm.url}`, name: model.id, baseUrl: vllm.url, size: null, contextLength: 32768, tools: null })),
  );
  expect(found.servers.slice(2)).toEqual([
    { server: "openai", kind: "vLLM", url: vllm.url, answered: true, problem: null },
    { server: "openai", kind: "LM Studio", url: locked.url, answered: false, problem: "needs a key (HTTP 401): set GLASSBOX_API_KEY" },
  ]);
});
