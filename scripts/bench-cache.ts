#!/usr/bin/env bun
/**
 * How much of each prompt the model server must process again: a long task (read 30 files of
 * ~3.9k characters one by one, then answer; the replies scripted) played through the real agent
 * loop and llama.cpp adapter at 8k, 16k and 32k-token windows. Prints, per window: requests, the
 * content the run must send at least once, what was reprocessed, their ratio, compactions, and the
 * largest prompt against the window; exits 1 when a target is missed.
 *
 * Two ways to process the prompts:
 * - by default, a fake llama-server on 127.0.0.1 (test/helpers/cache-server.ts) that keeps the
 *   previous prompt's cache as llama-server does (longest common prefix of the rendered prompt,
 *   tools block first), counted in characters; instant, and the same on every machine.
 * - `--server URL`, a real llama-server (a slot of 32768 tokens or more): a proxy
 *   (test/helpers/cache-proxy.ts) sends every prompt to it for one token and answers with the
 *   script, and tells glassbox the bench's window, so one server can serve all three windows.
 *   Counted in the server's tokens: its `timings.prompt_n` summed over the run (summary requests
 *   included) against the 30 results as its `/tokenize` counts them; prints its build and the
 *   date. `--server` alone starts a fresh one for each window (scripts/llama-server.ts's prose
 *   model, -c 32768 -np 1), stopped after it: llama-server keeps earlier prompts in memory
 *   (--cache-ram), and a server kept across windows served each window's prompts from the last
 *   one's (1.31 at 16k and 32k, against 1.40 and 1.47 cold). A named server should run with
 *   --cache-ram 0 for the same figures; the report notes a warm start.
 *
 * `--model gemma3` (or `all`, after the Qwen one) runs the generated Gemma 3 model instead: a
 * template without tools (the prompted tool protocol), sliding-window layers, started with the
 * flags glassbox's own launch gives it (--swa-full), or without them (`--without-flags`, an
 * outside server's case).
 *
 *   bun scripts/bench-cache.ts [--server [URL]] [--model qwen|gemma3|all] [--without-flags] [--windows 8192,16384] ['{"whole_share": 0.2}']    (context policy over the defaults, to compare)
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Checkpoint } from "../src/core/checkpoint.ts";
import { systemClock } from "../src/protocol/clock.ts";
import { SUMMARY_REQUEST } from "../src/core/context.ts";
import { ContextPolicySchema, DEFAULT_CONTEXT_POLICY } from "../src/core/discipline.ts";
import type { AgentEvent } from "../src/protocol/events.ts";
import { resolveLimits } from "../src/protocol/limits.ts";
import { runAgent } from "../src/core/loop.ts";
import { Policy } from "../src/core/policy.ts";
import { LlamaCppModel } from "../src/model/llamacpp.ts";
import { DEFAULT_MODEL_OPTIONS } from "../src/model/options.ts";
import { assemble, collectLayers } from "../src/prompt/layers.ts";
import { defaultTools } from "../src/tools/index.ts";
import { Workspace } from "../src/files/workspace.ts";
import { startCacheProxy } from "../test/helpers/cache-proxy.ts";
import { startCacheServer, type CachedReply } from "../test/helpers/cache-server.ts";
import { startLlamaServer, testModel } from "./llama-server.ts";
import { freemem } from "node:os";
import { ToolProtocolModel } from "../src/model/tool-protocol-model.ts";
import { readGgufHeader } from "../src/model/gguf.ts";
import { planServer } from "../src/model/server-plan.ts";

const FILES = 30;
const WINDOWS_AT = process.argv.indexOf("--windows");
/** The windows played (--windows 8192,16384 for some of them). */
const WINDOWS = WINDOWS_AT < 0 ? [8192, 16384, 32768] : process.argv[WINDOWS_AT + 1]!.split(",").map(Number);

const args = process.argv.slice(2);
const serverAt = args.indexOf("--server");
/** undefined: the fake server; null: start a real one; else the real server's address. */
const SERVER = serverAt < 0 ? undefined : (args[serverAt + 1]?.startsWith("http") ? args[serverAt + 1]! : null);
/** The generated model the real server runs: Qwen2.5's tokenizer and template (default), Gemma 3's (sliding-window layers, no tools in its template), or both in turn. */
const MODEL_AT = args.indexOf("--model");
const MODELS = (MODEL_AT < 0 ? "qwen" : args[MODEL_AT + 1]!) === "all" ? (["qwen", "gemma3"] as const) : ([MODEL_AT < 0 ? "qwen" : args[MODEL_AT + 1]!] as Array<"qwen" | "gemma3">);
if (!MODELS.every((model) => model === "qwen" || model === "gemma3")) throw new Error("--model is qwen, gemma3 or all");
/** --without-flags: the server started without the flags glassbox's own launch adds for the architecture (an outside server's case). */
const WITHOUT_FLAGS = args.includes("--without-flags");
const POLICY = ContextPolicySchema.parse({ ...DEFAULT_CONTEXT_POLICY, ...JSON.parse(args.find((arg) => arg.startsWith("{")) ?? "{}") });

/** About 3.9k characters of varied prose, different in every file. */
function fileText(n: number): string {
  const words = ["cache", "prefix", "token", "window", "server", "prompt", "slot", "batch", "result", "model", "laptop", "prefill"];
  const lines: string[] = [];
  for (let line = 0; line < 60; line++) {
    const picked = Array.from({ length: 9 }, (_, w) => words[(n * 7 + line * 3 + w * 5) % words.length]);
    lines.push(`${String(line + 1).padStart(2, "0")} file ${n} ${picked.join(" ")}.`.padEnd(64, "."));
  }
  return lines.join("\n") + "\n";
}

/** One prompt as the backend saw it: what it processed (not taken from its cache), in the backend's unit. */
interface Prompt {
  reprocessed: number;
  /** What came from the cache, in the same unit. */
  cached: number;
  /** The whole prompt in tokens (estimated by the fake, counted by a real server). */
  tokens: number;
  messages: Array<{ role: string; content: string | null }>;
}

/** One window's server, answering with the script. */
interface Session {
  url: string;
  prompts(): Prompt[];
  /** A text's size in the backend's unit. */
  size(text: string): Promise<number>;
  stop(): Promise<void>;
}

/** What processes the prompts, and the unit the figures are in. */
interface Backend {
  unit: "characters" | "tokens";
  /** reprocessed / content allowed at each window. */
  targets: Record<number, number>;
  start(window: number, respond: (messages: any[]) => CachedReply): Promise<Session>;
}

const fakeBackend: Backend = {
  unit: "characters",
  targets: { 8192: 2.0, 16384: 1.6, 32768: 1.5 },
  async start(window, respond) {
    const server = startCacheServer(window, respond);
    const prompts = () => server.records.map((record) => ({ reprocessed: record.chars - record.reused, cached: record.reused, tokens: record.promptTokens, messages: record.messages }));
    return { url: server.url, prompts, size: async (text) => text.length, stop: async () => server.stop() };
  },
};

/** A real llama-server for one window's run. */
interface RealServer {
  url: string;
  /** The flags it was started with beyond the model, the window and the slots. */
  flags?: string[];
  stop(): Promise<void>;
}

/** The real server behind the proxy, one per window (`serverFor`), so each window starts as cold as the fake's does. */
function realBackend(serverFor: () => Promise<RealServer>): Backend {
  let described = false;
  return {
    unit: "tokens",
    targets: { 8192: 1.35, 16384: 1.35, 32768: 1.35 },
    async start(window, respond) {
      const server = await serverFor();
      if (!described) console.log(await describe(server.url, server.flags ?? []));
      described = true;
      const proxy = startCacheProxy(window, server.url, respond);
      const prompts = () => proxy.records.map((record) => ({ reprocessed: record.processed, cached: record.cached, tokens: record.promptTokens, messages: record.messages }));
      const stop = async () => {
        proxy.stop();
        await server.stop();
      };
      return { url: proxy.url, prompts, size: (text) => tokenCount(server.url, text), stop };
    },
  };
}

/**
 * Started here: a fresh server for every window. One server for all three would not start them
 * cold even with its slot emptied: llama-server keeps earlier prompts in memory (`--cache-ram`,
 * 8 GiB by default) and served the next window's prompts from the last one's, its system prompt
 * and tools, and after a compaction the longer prefix the last window's compactions had left.
 */
function freshServers(kind: "qwen" | "gemma3"): () => Promise<RealServer> {
  return async () => {
    const model = await testModel(kind === "qwen" ? "prose" : "gemma3");
    // As glassbox's own launch starts it: the flags its architecture gets (--swa-full for Gemma 3's sliding-window layers).
    const flags = WITHOUT_FLAGS ? [] : planServer(readGgufHeader(model), { slots: 1, freeBytes: freemem(), userArgs: [] }).flags;
    return { ...(await startLlamaServer({ model, ctx: 32_768, slots: 1, args: flags })), flags };
  };
}

/**
 * Named by the user: the same server every window, its slot filled with an unrelated prompt
 * first, else it would still hold the last window's prompt. Its in-memory prompt cache
 * (--cache-ram) may still serve a run from an earlier one's; the report says so when it did.
 */
function namedServer(url: string): () => Promise<RealServer> {
  return async () => {
    await fillSlot(url);
    return { url, stop: async () => {} };
  };
}

async function fillSlot(server: string): Promise<void> {
  const body = { messages: [{ role: "user", content: "A prompt that shares nothing with the bench's." }], max_tokens: 1, cache_prompt: true };
  const answer = await fetch(`${server}/v1/chat/completions`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (!answer.ok) throw new Error(`${server} answered HTTP ${answer.status}: ${await answer.text()}`);
}

async function tokenCount(server: string, text: string): Promise<number> {
  const answer = await fetch(`${server}/tokenize`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ content: text }) });
  return ((await answer.json()) as { tokens: unknown[] }).tokens.length;
}

/** The model's side of the task: read the files in order, answer, and summarize when asked. */
function script(): (messages: any[]) => CachedReply {
  let steps = 0;
  const file = (n: number) => `file-${String(n).padStart(2, "0")}`;
  return (messages) => {
    // The request alone, or (prompted protocol) at the end of the user turn it joins.
    if (String(messages.at(-1)?.content ?? "").endsWith(SUMMARY_REQUEST)) return { text: `Task: read the notes. Read file-01 to ${file(steps)} so far; nothing unusual yet. Remaining: the rest.` };
    steps++;
    if (steps <= FILES) return { call: { name: "read_file", arguments: { path: `notes/${file(steps)}.md` } } };
    return { text: `All ${FILES} notes are read; every one talks about the prompt cache.` };
  };
}

interface Figures {
  window: number;
  requests: number;
  content: number;
  reprocessed: number;
  /** What of the run's first prompt the server already had cached (from an earlier run). */
  warmStart: number;
  elided: number;
  summarized: number;
  largestPrompt: number;
  readAll: boolean;
  completed: boolean;
  allWhole: boolean;
  seconds: number;
}

async function play(window: number, backend: Backend): Promise<Figures> {
  const began = performance.now();
  const root = mkdtempSync(join(tmpdir(), "glassbox-bench-cache-"));
  mkdirSync(join(root, "notes"));
  for (let n = 1; n <= FILES; n++) writeFileSync(join(root, "notes", `file-${String(n).padStart(2, "0")}.md`), fileText(n));
  const session = await backend.start(window, script());
  try {
    const events = await runTask(root, session.url, window);
    return { ...(await figures(window, events, session)), seconds: (performance.now() - began) / 1000 };
  } finally {
    await session.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

async function runTask(root: string, url: string, window: number): Promise<AgentEvent[]> {
  const limits = resolveLimits({});
  const checkpoint = new Checkpoint({
    tools: defaultTools({}),
    workspace: new Workspace(root),
    clock: systemClock,
    policy: new Policy([], []),
    maxResultChars: limits.max_result_chars,
    execute: true,
  });
  const events: AgentEvent[] = [];
  for await (const event of runAgent({
    runId: `bench-cache-${window}`,
    task: `Read every file in notes/ one by one, in order, then say in one sentence what they are about.`,
    systemPrompt: assemble(collectLayers(root)),
    // As a session speaks to it: the prompted tool protocol where the template has no tools (Gemma 3's).
    model: new ToolProtocolModel(new LlamaCppModel("llamacpp", url, DEFAULT_MODEL_OPTIONS), "auto"),
    checkpoint,
    offerTools: true,
    limits,
    clock: systemClock,
    workspace: root,
    replyTokenCap: DEFAULT_MODEL_OPTIONS.max_tokens,
    contextWindow: window,
    discipline: { context: POLICY },
  })) {
    events.push(event);
  }
  return events;
}

async function figures(window: number, events: AgentEvent[], session: Session): Promise<Omit<Figures, "seconds">> {
  const prompts = session.prompts();
  const reads = events.filter((event): event is Extract<AgentEvent, { kind: "tool_call" }> => event.kind === "tool_call" && event.tool === "read_file" && event.decision === "allowed");
  // A result goes back as a tool message, or inside a user turn under the prompted protocol.
  const sent = prompts.flatMap((prompt) => prompt.messages.filter((message) => message.role === "tool" || message.role === "user").map((message) => message.content ?? ""));
  const wasSent = (result: string) => sent.some((content) => content === result || content.includes(`Result of read_file:\n${result}`));
  const stop = events.at(-1);
  let content = 0;
  for (const event of reads) content += await session.size(event.result);
  return {
    window,
    requests: prompts.length,
    content,
    reprocessed: prompts.reduce((sum, prompt) => sum + prompt.reprocessed, 0),
    warmStart: prompts[0]?.cached ?? 0,
    elided: events.filter((event) => event.kind === "context_elided").length,
    summarized: events.filter((event) => event.kind === "context_summarized").length,
    largestPrompt: Math.max(...prompts.map((prompt) => prompt.tokens)),
    readAll: new Set(reads.map((event) => event.arguments)).size === FILES,
    completed: stop?.kind === "stop" && stop.status === "completed",
    allWhole: reads.every((event) => !event.result.includes("characters cut") && wasSent(event.result)),
  };
}

/** More of a first prompt than an unrelated prompt shares with it (the template's opening tokens). */
const WARM_START = 16;

/** Prints the table; returns how many windows missed their target. */
function report(rows: Figures[], backend: Backend): number {
  const k = (n: number) => `${(n / 1000).toFixed(backend.unit === "tokens" ? 1 : 0)}k`;
  console.log(`| window | requests | content (${backend.unit}) | reprocessed (${backend.unit}) | reprocessed / content | target | compactions (elided + summarized) | largest prompt / window | all read, completed, each whole once | seconds |`);
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  let missed = 0;
  for (const row of rows) {
    const ratio = row.reprocessed / row.content;
    const target = backend.targets[row.window]!;
    const ok = ratio <= target && row.largestPrompt <= row.window && row.readAll && row.completed && row.allWhole;
    if (!ok) missed++;
    console.log(
      `| ${row.window.toLocaleString("en")} | ${row.requests} | ${k(row.content)} | ${k(row.reprocessed)} | ${ratio.toFixed(2)} | ≤ ${target.toFixed(Number.isInteger(target * 10) ? 1 : 2)} ${ok ? "met" : "MISSED"} | ` +
        `${row.elided + row.summarized} (${row.elided} + ${row.summarized}) | ${row.largestPrompt.toLocaleString("en")} / ${row.window.toLocaleString("en")} | ${[row.readAll, row.completed, row.allWhole].map((yes) => (yes ? "yes" : "NO")).join(", ")} | ${row.seconds.toFixed(1)} |`,
    );
  }
  for (const row of rows.filter((row) => row.warmStart > WARM_START)) {
    console.log(
      `note: at ${row.window.toLocaleString("en")} the server already had ${row.warmStart.toLocaleString("en")} ${backend.unit} of the first prompt, from an earlier window's run ` +
        `(llama-server keeps old prompts in memory, --cache-ram), which flatters this window's figures: give the server --cache-ram 0, or let the bench start its own (--server alone)`,
    );
  }
  return missed;
}

/** The server's build and per-slot window; a window under the bench's largest cannot serve it. */
async function describe(url: string, flags: string[]): Promise<string> {
  const props = (await (await fetch(`${url}/props`)).json()) as any;
  const window = props.default_generation_settings?.n_ctx;
  if (!(window >= Math.max(...WINDOWS))) throw new Error(`${url} has a window of ${window} tokens a slot; the bench needs ${Math.max(...WINDOWS)} (start it with -c 32768 -np 1)`);
  const template = props.chat_template_caps?.supports_tools === false ? "a template without tools (the prompted tool protocol)" : "a template with tools";
  return `llama-server ${props.build_info}, ${props.total_slots} slot(s) of ${window} tokens, ${template}, flags: ${flags.join(" ") || "none"}, model ${props.model_path ?? "?"}, ${new Date().toISOString().slice(0, 10)}`;
}

async function main(): Promise<number> {
  let missed = 0;
  for (const model of SERVER === null ? MODELS : ["qwen" as const]) {
    const backend = SERVER === undefined ? fakeBackend : realBackend(SERVER ? namedServer(SERVER) : freshServers(model));
    const rows: Figures[] = [];
    for (const window of WINDOWS) rows.push(await play(window, backend));
    missed += report(rows, backend);
  }
  return missed;
}

process.exit((await main()) ? 1 : 0);
