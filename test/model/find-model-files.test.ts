/**
 * What the model picker offers (findModelsAndFiles): what the servers answer, then the GGUF files
 * of the home folder's usual places (src/model/gguf-files.ts; test/model/gguf-files.test.ts).
 */
import { beforeAll, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testModel } from "../../scripts/llama-server.ts";
import { findModels, findModelsAndFiles } from "../../src/model/find-model.ts";
import { closedAddress } from "../helpers/fake-server.ts";
import { LLAMA_START_TIMEOUT } from "../helpers/llama.ts";
import { tempFolder } from "../helpers/workspace.ts";

let home: string;
beforeAll(async () => {
  home = tempFolder("home");
  mkdirSync(join(home, "models"));
  symlinkSync(await testModel("finish"), join(home, "models", "tiny.gguf"));
  writeFileSync(join(home, "models", "cut.gguf"), "GGUF");
}, LLAMA_START_TIMEOUT);

const nothingAnswers = () => ({ GLASSBOX_LLAMACPP_URL: closedAddress(), OLLAMA_HOST: closedAddress().replace("http://", ""), GLASSBOX_OPENAI_URLS: "" });

test("the picker's list: what the servers answer, then the files of HOME's folders, and the files that are not usable", async () => {
  const found = await findModelsAndFiles(undefined, { HOME: home, ...nothingAnswers() });
  expect(found.candidates.map((candidate) => candidate.spec)).toEqual([`gguf:${home}/models/tiny.gguf`]);
  expect(found.servers.map((server) => server.problem)).toEqual(["connection refused", "connection refused"]);
  expect(found.unusable).toEqual([{ path: `${home}/models/cut.gguf`, problem: "is truncated: its header ends past the file's 4 bytes" }]);
});

test("what answers is all a headless run may take: files are the picker's only", async () => {
  const found = await findModels(undefined, { HOME: home, ...nothingAnswers() });
  expect(found.candidates).toEqual([]);
  expect(found.unusable).toBeUndefined();
});

test("with nothing configured, LM Studio's, vLLM's and SGLang's usual addresses are asked too, each named by its kind", async () => {
  const { GLASSBOX_OPENAI_URLS: _none, ...env } = nothingAnswers();
  const found = await findModels(undefined, env, { timeoutMs: 500 });
  expect(found.servers.slice(2).map((server) => [server.kind, server.url])).toEqual([
    ["LM Studio", "http://127.0.0.1:1234"],
    ["vLLM", "http://127.0.0.1:8000"],
    ["SGLang", "http://127.0.0.1:30000"],
  ]);
});

test("discovery sends the key from GLASSBOX_API_KEY, so a server that needs one lists its models", async () => {
  const key = "sk-discovery-test-7f3a91";
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) =>
      request.headers.get("authorization") === `Bearer ${key}`
        ? Response.json({ object: "list", data: [{ id: "Qwen/Qwen3-8B", object: "model", owned_by: "vllm", max_model_len: 40960 }] })
        : Response.json({ error: "Unauthorized" }, { status: 401 }),
  });
  const env = { ...nothingAnswers(), GLASSBOX_OPENAI_URLS: server.url.origin };
  try {
    const without = await findModels(undefined, env);
    expect(without.servers.at(-1)).toMatchObject({ answered: false, problem: "needs a key (HTTP 401): set GLASSBOX_API_KEY" });
    const found = await findModels(undefined, { ...env, GLASSBOX_API_KEY: key });
    expect(found.candidates).toEqual([expect.objectContaining({ spec: `openai:${server.url.origin}`, modelName: "Qwen/Qwen3-8B", contextLength: 40960 })]);
  } finally {
    server.stop(true);
  }
});
