import { expect, test } from "bun:test";
import { parseModelSpec } from "../../src/model/model-spec.ts";

test("ollama: specs go to OLLAMA_HOST, read as Ollama reads it; --base-url wins", () => {
  expect(parseModelSpec("ollama:qwen3:4b", undefined, {})).toEqual({ kind: "ollama", model: "qwen3:4b", baseUrl: "http://127.0.0.1:11434" });
  expect(parseModelSpec("ollama:qwen3:4b", undefined, { OLLAMA_HOST: "gpu-box:5000" })).toEqual({ kind: "ollama", model: "qwen3:4b", baseUrl: "http://gpu-box:5000" });
  expect(parseModelSpec("ollama:qwen3:4b", undefined, { OLLAMA_HOST: ":5001" })).toMatchObject({ baseUrl: "http://127.0.0.1:5001" });
  expect(parseModelSpec("ollama:qwen3:4b", "http://elsewhere:1", { OLLAMA_HOST: "gpu-box:5000" })).toMatchObject({ baseUrl: "http://elsewhere:1" });
});

test("llamacpp without an address: GLASSBOX_LLAMACPP_URL, else llama-server's default port", () => {
  expect(parseModelSpec("llamacpp", undefined, {})).toEqual({ kind: "llamacpp", baseUrl: "http://127.0.0.1:8080" });
  expect(parseModelSpec("llamacpp", undefined, { GLASSBOX_LLAMACPP_URL: "http://127.0.0.1:9999/" })).toMatchObject({ baseUrl: "http://127.0.0.1:9999" });
  expect(parseModelSpec("llamacpp:http://x:1", undefined, { GLASSBOX_LLAMACPP_URL: "http://127.0.0.1:9999" })).toMatchObject({ baseUrl: "http://x:1" });
});

test("an OLLAMA_HOST with a scheme glassbox cannot speak is a usage error naming it", () => {
  expect(() => parseModelSpec("ollama:qwen3:4b", undefined, { OLLAMA_HOST: "tcp://host:1" })).toThrow(/"tcp:\/\/host:1" \(from OLLAMA_HOST\) is not an http\(s\) URL/);
});
