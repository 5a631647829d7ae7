import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ScriptSchema, ScriptedModel } from "./scripted.ts";
import type { ModelClient } from "../protocol/model.ts";
import { LlamaCppModel } from "./llamacpp.ts";
import { OllamaModel } from "./ollama.ts";
import { ollamaHostUrl } from "./ollama-host.ts";
import type { ModelOptions } from "./options.ts";
import type { WireLog } from "../trace/wire-log.ts";
import { parseWith } from "../protocol/parse-with.ts";
import type { Env, ModelConfig } from "./model-config.ts";
import { GgufModel } from "./gguf-model.ts";
import { OpenAiModel } from "./openai.ts";
import { NO_ACCESS, type ServerAccess } from "./access.ts";
import { ggufLaunch } from "./llama-server-launch.ts";
import { UsageError } from "../protocol/usage-error.ts";

/** llama-server's default address. */
export const DEFAULT_LLAMACPP_URL = "http://127.0.0.1:8080";


/** Where glassbox looks for llama.cpp: GLASSBOX_LLAMACPP_URL (tests point it elsewhere), else llama-server's default. */
export function llamaCppUrl(env: Env = process.env): string {
  return env.GLASSBOX_LLAMACPP_URL?.trim() || DEFAULT_LLAMACPP_URL;
}

/** Where glassbox looks for Ollama: OLLAMA_HOST, read as Ollama reads it. */
export function ollamaUrl(env: Env = process.env): string {
  return ollamaHostUrl(env.OLLAMA_HOST);
}

export type ModelSpec =
  | { kind: "scripted"; file: string }
  | { kind: "llamacpp"; baseUrl: string }
  | { kind: "ollama"; model: string; baseUrl: string }
  /** A GGUF file: glassbox starts llama-server for it. `path` is absolute, `~` expanded. */
  | { kind: "gguf"; path: string }
  /** Any OpenAI chat-completions server; `baseUrl` without a trailing /v1. */
  | { kind: "openai"; baseUrl: string };

const SPEC_HELP = "use scripted:FILE, llamacpp[:BASE_URL], ollama:MODEL, openai:BASE_URL or gguf:PATH (a bare path ending in .gguf also works)";

export function parseModelSpec(spec: string, baseUrl?: string, env: Env = process.env): ModelSpec {
  if (/\.gguf$/i.test(spec) && !spec.startsWith("gguf:")) return { kind: "gguf", path: expandPath(spec, env) };
  const [kind, ...rest] = spec.split(":");
  const value = rest.join(":");
  switch (kind) {
    case "openai":
      if (!value && !baseUrl) throw new UsageError(`model spec "${spec}" names no server; for example openai:https://gpu-box.example:8000/v1`);
      return { kind, baseUrl: checkUrl(value || baseUrl!, spec, "").replace(/\/v1$/, "") };
    case "gguf":
      if (!value) throw new UsageError(`model spec "${spec}" names no file; for example gguf:~/models/qwen2.5-coder-7b-instruct-q4_k_m.gguf`);
      return { kind, path: expandPath(value, env) };
    case "scripted":
      if (!value) throw new UsageError(`model spec "${spec}" names no file; ${SPEC_HELP}`);
      return { kind, file: value };
    case "llamacpp":
      return { kind, baseUrl: checkUrl(value || baseUrl || llamaCppUrl(env), spec, value || baseUrl ? "" : " (from GLASSBOX_LLAMACPP_URL)") };
    case "ollama":
      if (!value) throw new UsageError(`model spec "${spec}" names no model; for example ollama:qwen2.5:1.5b`);
      return { kind, model: value, baseUrl: checkUrl(baseUrl ?? ollamaUrl(env), spec, baseUrl ? "" : " (from OLLAMA_HOST)") };
    default:
      throw new UsageError(`unknown model spec "${spec}"; ${SPEC_HELP}`);
  }
}

/** A path as a shell would take it: `~` is the home folder; relative to the current folder; made absolute. */
function expandPath(path: string, env: Env): string {
  const home = env.HOME || homedir();
  return resolve(path === "~" ? home : path.startsWith("~/") ? join(home, path.slice(2)) : path);
}

function checkUrl(url: string, spec: string, from: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error();
    return url.replace(/\/+$/, "");
  } catch {
    throw new UsageError(`model spec "${spec}": "${url}"${from} is not an http(s) URL`);
  }
}

/** A scripted-model file, validated: a broken script is a usage error, not a run. */
export function loadScript(file: string) {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`cannot read scripted-model file ${file}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`scripted-model file ${file} is not valid JSON (${(error as Error).message})`);
  }
  return parseWith(ScriptSchema, raw, `scripted-model file ${file}`);
}

/** Where a `gguf:` model's server runs from (the config, the workspace for its log), and how any server is reached. */
export interface ServerPlace {
  config: ModelConfig;
  workspaceRoot: string;
  /** Parallel slots: eval --jobs N serves N runs from one server. */
  slots?: number;
  access?: ServerAccess;
  /** openai: the model's name on the server (--model-name, else the config's). */
  modelName?: string;
}

export function createModel(spec: ModelSpec, name: string, options: ModelOptions, wire?: WireLog, place?: ServerPlace): ModelClient {
  switch (spec.kind) {
    case "gguf":
      if (!place) throw new Error("a gguf: model needs the config and workspace its server runs from");
      return new GgufModel(name, ggufLaunch(spec.path, place.config, place.workspaceRoot, place.slots), options, wire);
    case "scripted":
      return new ScriptedModel(name, loadScript(spec.file));
    case "llamacpp":
      return new LlamaCppModel(name, spec.baseUrl, options, wire, { llamaCpp: true, access: place?.access ?? NO_ACCESS });
    case "openai":
      return new OpenAiModel(name, spec.baseUrl, place?.modelName ?? place?.config.model_name, options, place?.access ?? NO_ACCESS, wire);
    case "ollama":
      return new OllamaModel(name, spec.model, spec.baseUrl, options, wire);
  }
}
