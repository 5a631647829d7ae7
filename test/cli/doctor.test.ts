import { expect, test } from "bun:test";
import { doctor } from "../../src/cli/doctor.ts";
import { parseCli } from "../../src/cli/args.ts";
import { makeWorkspace } from "../helpers/workspace.ts";
import { llamaCppServer, llamaCppTextScene, ollamaExample, ollamaServer } from "../helpers/fake-server.ts";

async function runDoctor(argv: string[]): Promise<{ code: number; lines: string[] }> {
  const ws = makeWorkspace();
  const lines: string[] = [];
  const code = await doctor(parseCli(["doctor", "--workspace", ws.root, ...argv]), (line) => lines.push(line));
  return { code, lines };
}

test("llama.cpp: up, models, real context size, tool support, a timed round trip", async () => {
  const server = llamaCppServer(() => llamaCppTextScene("OK"));
  const { code, lines } = await runDoctor(["--model", `llamacpp:${server.url}`]);
  const text = lines.join("\n");
  expect(code).toBe(0);
  expect(text).toContain(`server up at ${server.url}`);
  expect(text).toContain("models/tiny-32k.gguf");
  expect(text).toContain("context size 4096 tokens");
  expect(text).toContain("tool calls supported");
  expect(text).toMatch(/round trip \d+ ms: "OK"/);
  expect(text).not.toContain("FAIL");
});

test("llama.cpp down: one failure with the fix", async () => {
  const { code, lines } = await runDoctor(["--model", "llamacpp:http://127.0.0.1:9"]);
  expect(code).toBe(1);
  expect(lines.join("\n")).toContain("connection refused");
  expect(lines.join("\n")).toContain("fix: start it: llama-server");
});

test("Ollama: a model that is not pulled is named with the pull command", async () => {
  const server = ollamaServer(() => ollamaExample("01-text-stream"));
  const missing = await runDoctor(["--model", "ollama:qwen9:1b", "--base-url", server.url]);
  expect(missing.code).toBe(1);
  expect(missing.lines.join("\n")).toContain("fix: ollama pull qwen9:1b");
  const present = await runDoctor(["--model", "ollama:qwen2.5:1.5b", "--base-url", server.url]);
  expect(present.code).toBe(0);
  expect(present.lines.join("\n")).toContain("model trained for 32768 tokens; glassbox asks for num_ctx 8192");
});
