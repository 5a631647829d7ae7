import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Candidate } from "../../src/model/discovery.ts";
import { readState, rememberModel, rememberedCandidate, statePath } from "../../src/session/workspace-state.ts";
import { tempFolder } from "../helpers/workspace.ts";

const candidate = (spec: string, name: string): Candidate => ({ server: spec.startsWith("ollama") ? "ollama" : "llamacpp", spec, name, baseUrl: "http://127.0.0.1:1", size: null, contextLength: null, tools: null });
const QWEN3 = candidate("ollama:qwen3:4b", "qwen3:4b");
const QWEN25 = candidate("ollama:qwen2.5:1.5b", "qwen2.5:1.5b");

test("the remembered model is used while it still answers, and only then", () => {
  const root = tempFolder("state");
  expect(rememberedCandidate(root, [QWEN25, QWEN3])).toBeNull();
  rememberModel(root, QWEN3, Date.UTC(2026, 11, 1));
  expect(rememberedCandidate(root, [QWEN25, QWEN3])).toBe(QWEN3);
  // Removed from Ollama since: nothing is remembered, the picker asks again.
  expect(rememberedCandidate(root, [QWEN25])).toBeNull();
  expect(readState(root).model).toEqual({ spec: "ollama:qwen3:4b", name: "qwen3:4b", chosen_at: "2026-12-01T00:00:00.000Z" });
});

test("llama.cpp is remembered with the model it served: another model at the same address asks again", () => {
  const root = tempFolder("state");
  rememberModel(root, candidate("llamacpp:http://127.0.0.1:8080", "qwen.gguf"), 0);
  expect(rememberedCandidate(root, [candidate("llamacpp:http://127.0.0.1:8080", "qwen.gguf")])?.name).toBe("qwen.gguf");
  expect(rememberedCandidate(root, [candidate("llamacpp:http://127.0.0.1:8080", "llama.gguf")])).toBeNull();
});

test("a broken state file counts as empty; remembering keeps the file's other keys", () => {
  const root = tempFolder("state");
  mkdirSync(dirname(statePath(root)), { recursive: true });
  writeFileSync(statePath(root), "{not json");
  expect(readState(root)).toEqual({});
  expect(rememberedCandidate(root, [QWEN3])).toBeNull();
  writeFileSync(statePath(root), JSON.stringify({ model: { spec: 7 }, other: { kept: true } }));
  expect(rememberedCandidate(root, [QWEN3])).toBeNull();
  writeFileSync(statePath(root), JSON.stringify({ other: { kept: true } }));
  rememberModel(root, QWEN3, 0);
  expect(JSON.parse(readFileSync(statePath(root), "utf8"))).toEqual({ other: { kept: true }, model: { spec: "ollama:qwen3:4b", name: "qwen3:4b", chosen_at: "1970-01-01T00:00:00.000Z" } });
});
