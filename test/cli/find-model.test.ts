/** No --model and none in the config: `run` and `doctor` take what answers on 127.0.0.1 (real processes, fake servers). */
import { expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { glassbox } from "../helpers/cli.ts";
import { closedAddress, fakeOllama, ollamaExample, ollamaToolCallScene } from "../helpers/fake-server.ts";
import { makeWorkspace } from "../helpers/workspace.ts";

const TWO_MODELS = [
  { name: "qwen2.5:1.5b", size: 986061892, contextLength: 32768 },
  { name: "qwen3:4b", size: 2497293918, contextLength: 40960 },
];

/** The environment of a user whose Ollama is the fake and whose llama.cpp is not running. */
function onlyOllama(url: string): Record<string, string> {
  return { OLLAMA_HOST: url.replace("http://", ""), GLASSBOX_LLAMACPP_URL: closedAddress() };
}

test("run with two models answering exits 2, naming both with the --model to pass, and runs nothing", async () => {
  const ollama = fakeOllama(TWO_MODELS, () => ollamaExample("01-text-stream"));
  const ws = makeWorkspace();
  const result = await glassbox(["run", "--workspace", ws.root, "say hi"], { env: onlyOllama(ollama.url) });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain("2 models answer and no --model says which");
  expect(result.stderr).toMatch(/--model ollama:qwen2\.5:1\.5b +qwen2\.5:1\.5b · Ollama · 986 MB · context 32768/);
  expect(result.stderr).toMatch(/--model ollama:qwen3:4b +qwen3:4b · Ollama · 2\.5 GB · context 40960/);
  expect(result.stdout).toBe("");
  expect(ollama.requests.some((request) => request.path === "/api/chat")).toBe(false);
  expect(existsSync(join(ws.root, ".glassbox", "runs"))).toBe(false);
});

test("run with one model answering uses it: the chat request reaches Ollama with that model", async () => {
  const ollama = fakeOllama(TWO_MODELS.slice(1), () => ollamaExample("01-text-stream"));
  const ws = makeWorkspace();
  // This time OLLAMA_HOST carries the scheme.
  const result = await glassbox(["run", "--json", "--workspace", ws.root, "say hi"], { env: { ...onlyOllama(ollama.url), OLLAMA_HOST: ollama.url } });
  expect(result.code).toBe(0);
  expect(result.events[0]).toMatchObject({ kind: "run_start", model: "ollama:qwen3:4b" });
  const chats = ollama.requests.filter((request) => request.path === "/api/chat");
  expect(chats.length).toBeGreaterThan(0);
  expect(chats.every((request) => request.body.model === "qwen3:4b")).toBe(true);
});

test("run with nothing answering exits 2 and says how to start a server", async () => {
  const ws = makeWorkspace();
  const llamacpp = closedAddress();
  const result = await glassbox(["run", "--workspace", ws.root, "say hi"], { env: { OLLAMA_HOST: ":9", GLASSBOX_LLAMACPP_URL: llamacpp } });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(`llama.cpp at ${llamacpp}: connection refused`);
  expect(result.stderr).toContain("Ollama at http://127.0.0.1:9: connection refused");
  expect(result.stderr).toContain("llama-server -m MODEL.gguf");
  expect(result.stderr).toContain("ollama serve");
  expect(result.stderr).toContain("--demo");
});

test("a model in the config is used as it is: nothing is probed", async () => {
  const ollama = fakeOllama(TWO_MODELS, () => ollamaExample("01-text-stream"));
  const ws = makeWorkspace();
  writeFileSync(join(ws.root, "glassbox.json"), JSON.stringify({ model: "ollama:qwen2.5:1.5b" }));
  const result = await glassbox(["run", "--json", "--workspace", ws.root, "say hi"], { env: onlyOllama(ollama.url) });
  expect(result.code).toBe(0);
  expect(ollama.requests.map((request) => request.path)).not.toContain("/api/tags");
  expect(ollama.requests.find((request) => request.path === "/api/chat")?.body.model).toBe("qwen2.5:1.5b");
});

test("doctor without a model lists what answers; with one model it checks that one in depth", async () => {
  const two = fakeOllama(TWO_MODELS, () => ollamaExample("01-text-stream"));
  const ws = makeWorkspace();
  const listed = await glassbox(["doctor", "--workspace", ws.root], { env: onlyOllama(two.url) });
  expect(listed.code).toBe(0);
  expect(listed.stdout).toContain("ok    found --model ollama:qwen2.5:1.5b: qwen2.5:1.5b · Ollama · 986 MB · context 32768");
  expect(listed.stdout).toContain("ok    found --model ollama:qwen3:4b");
  expect(listed.stdout).toContain("glassbox doctor --model SPEC checks one of them in depth");
  // The deep check's tool-call probe (the one request offering tools) gets a native call, as a tool-trained model answers it.
  const one = fakeOllama(TWO_MODELS.slice(0, 1), (_, request) => (request.body?.tools?.length ? ollamaToolCallScene("current_time", {}) : ollamaExample("01-text-stream")));
  const deep = await glassbox(["doctor", "--workspace", ws.root], { env: onlyOllama(one.url) });
  expect(deep.code).toBe(0);
  expect(deep.stdout).toContain("glassbox doctor · model ollama:qwen2.5:1.5b");
  expect(deep.stdout).toMatch(/round trip \d+ ms/);
  const none = await glassbox(["doctor", "--workspace", ws.root], { env: { OLLAMA_HOST: ":9", GLASSBOX_LLAMACPP_URL: closedAddress() } });
  expect(none.code).toBe(1);
  expect(none.stdout).toContain("FAIL  no model answers");
});

test("--base-url without --model: that one address is asked, and the model found there is used", async () => {
  const ollama = fakeOllama(TWO_MODELS.slice(0, 1), () => ollamaExample("01-text-stream"));
  const ws = makeWorkspace();
  const result = await glassbox(["run", "--json", "--workspace", ws.root, "--base-url", ollama.url, "say hi"], { env: { OLLAMA_HOST: ":9", GLASSBOX_LLAMACPP_URL: closedAddress() } });
  expect(result.code).toBe(0);
  expect(result.events[0]).toMatchObject({ kind: "run_start", model: "ollama:qwen2.5:1.5b" });
  expect(ollama.requests.find((request) => request.path === "/api/chat")?.body.model).toBe("qwen2.5:1.5b");
});
