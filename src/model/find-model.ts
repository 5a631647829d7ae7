import { discoverModels, serverLabel, type Candidate, type Discovery, type DiscoveryOptions } from "./discovery.ts";
import { findGgufFiles } from "./gguf-files.ts";
import { homeFolder, tildePath } from "../platform/home.ts";
import { llamaCppUrl, ollamaUrl } from "./model-spec.ts";
import type { Env } from "./model-config.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { ApiKey, NO_ACCESS, requestHeaders } from "./access.ts";

/** How to get a model when nothing answers; said by `run`, the TUI and `doctor`. */
export const START_A_SERVER =
  "start one: llama-server -m MODEL.gguf --jinja --port 8080, or ollama serve (and ollama pull qwen2.5:1.5b); or pass --model SPEC; glassbox --demo needs no server";

/**
 * Asks llama.cpp (GLASSBOX_LLAMACPP_URL, else 127.0.0.1:8080) and Ollama (OLLAMA_HOST, else
 * 127.0.0.1:11434) which models they have. With --base-url that one address is asked as both.
 */
export function findModels(baseUrl: string | undefined, env: Env = process.env, options: Partial<DiscoveryOptions> = {}): Promise<Discovery> {
  const address = baseUrl?.trim().replace(/\/+$/, "");
  const key = env.GLASSBOX_API_KEY;
  return discoverModels({
    llamacppUrl: address || llamaCppUrl(env),
    ollamaUrl: address || ollamaUrl(env),
    openaiUrls: address ? [] : openAiUrls(env),
    headers: key ? requestHeaders({ ...NO_ACCESS, key: new ApiKey(key, "GLASSBOX_API_KEY") }) : {},
    ...options,
  });
}

/** Where OpenAI-compatible servers usually listen on a machine; GLASSBOX_OPENAI_URLS (comma-separated, empty: none) replaces the list. */
const USUAL_OPENAI_SERVERS = [
  { kind: "LM Studio", url: "http://127.0.0.1:1234" },
  { kind: "vLLM", url: "http://127.0.0.1:8000" },
  { kind: "SGLang", url: "http://127.0.0.1:30000" },
];

function openAiUrls(env: Env): Array<{ kind: string; url: string }> {
  const listed = env.GLASSBOX_OPENAI_URLS;
  if (listed === undefined) return USUAL_OPENAI_SERVERS;
  return listed.split(",").map((url) => url.trim().replace(/\/+$/, "")).filter(Boolean).map((url) => ({ kind: "OpenAI-compatible", url }));
}

/**
 * What the picker offers: what the servers answer, then the GGUF files in the usual folders of
 * the home folder (HOME), which glassbox serves itself once one is picked.
 */
export async function findModelsAndFiles(baseUrl: string | undefined, env: Env = process.env, options: Partial<DiscoveryOptions> = {}): Promise<Discovery> {
  const [servers, files] = await Promise.all([findModels(baseUrl, env, options), findGgufFiles(homeFolder(env))]);
  return { candidates: [...servers.candidates, ...files.candidates], servers: servers.servers, unusable: files.unusable };
}

/** Each GGUF file found that cannot be used and why: `~/models/x.gguf is truncated: …`. */
export function unusableFiles(discovery: Pick<Discovery, "unusable">, env: Env = process.env): string[] {
  return (discovery.unusable ?? []).map((file) => `${tildePath(file.path, homeFolder(env))} ${file.problem}`);
}

/** `qwen3:4b · Ollama · 2.5 GB · context 40960`. */
export function describeCandidate(candidate: Candidate): string {
  return [
    candidate.name,
    serverLabel(candidate.server, candidate.kind),
    ...(candidate.size ? [formatSize(candidate.size)] : []),
    candidate.contextLength ? `context ${candidate.contextLength}` : "context unknown",
    ...(candidate.tools === false ? ["no tool calls"] : []),
  ].join(" · ");
}

/** Each address asked and why it gave nothing: `llama.cpp at http://…: connection refused`. */
export function silentServers(discovery: Discovery): string[] {
  return discovery.servers.filter((server) => server.problem).map((server) => `${serverLabel(server.server, server.kind)} at ${server.url}: ${server.problem}`);
}

/**
 * Headless runs take the model only when exactly one answers: a script must not depend on which
 * server happened to start first, nor on what someone picked in the TUI.
 */
export function onlyCandidate(discovery: Discovery): Candidate {
  const { candidates } = discovery;
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0) throw new UsageError(`no --model given and no model answers (${silentServers(discovery).join("; ")}); ${START_A_SERVER}`);
  const width = Math.max(...candidates.map((candidate) => candidate.spec.length));
  const lines = candidates.map((candidate) => `  --model ${candidate.spec.padEnd(width)}   ${describeCandidate(candidate)}`);
  throw new UsageError(`${candidates.length} models answer and no --model says which; pass one of:\n${lines.join("\n")}\n(or set "model" in glassbox.json)`);
}

/** Sizes as Ollama shows them: decimal units, 986 MB, 2.5 GB. */
export function formatSize(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value < 10 && unit > 0 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
