import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SUMMARY_NOTE_MARK, SUMMARY_REQUEST } from "../../src/core/context.ts";
import { llamaChunk, readFixture, SSE_HEADERS, startFakeServer, type FakeServer, type Scene } from "./fake-server.ts";

export interface ScriptReply {
  content?: string;
  answers?: "summary";
  tool_calls?: Array<{ id?: string; name: string; arguments?: unknown }>;
}

/** A model's trait as one transformation of a good script's reply (its index in the script, the whole script). */
export type Trait = (reply: ScriptReply, index: number, replies: ScriptReply[]) => ScriptReply;

export interface ScriptedServerOptions {
  /** Every reply goes through it: a model-like server with a known trait, built from the good scripts. */
  trait?: Trait;
  /** The model's id on /v1/models (what glassbox keys a profile by). */
  modelId?: string;
  /** The window /props reports (default 8192). */
  window?: number;
}

/**
 * An OpenAI-compatible server (llama.cpp's wire shape, an 8K window) that answers from the
 * scripted fixtures of a task set, after `delayMs`, for many runs at once: the first user message
 * names the task, and the conversation itself says how far the run is, so it keeps no state per
 * run and any number of runs may interleave.
 */
export function scriptedServer(tasksDir: string, scriptsDir: string, delayMs: number, options: ScriptedServerOptions = {}): FakeServer {
  const byPrompt = new Map<string, ScriptReply[]>();
  for (const file of readdirSync(tasksDir).filter((name) => name.endsWith(".json"))) {
    const task = JSON.parse(readFileSync(join(tasksDir, file), "utf8")) as { prompt: string };
    byPrompt.set(task.prompt, (JSON.parse(readFileSync(join(scriptsDir, file), "utf8")) as { replies: ScriptReply[] }).replies);
  }
  const props = readFixture("llamacpp-wire/00-props.json").replace('"n_ctx":4096', `"n_ctx":${options.window ?? 8192}`);
  return startFakeServer((request) => {
    if (request.path === "/props") return { status: 200, headers: { "Content-Type": "application/json" }, pieces: [props] };
    if (request.path === "/v1/models") return { status: 200, headers: { "Content-Type": "application/json" }, pieces: [JSON.stringify({ object: "list", data: [{ id: options.modelId ?? "models/scripted.gguf", object: "model", owned_by: "llamacpp" }] })] };
    const messages = (request.body?.messages ?? []) as Array<{ role: string; content?: string }>;
    const prompt = messages.find((message) => message.role === "user")?.content ?? "";
    const replies = byPrompt.get(prompt);
    const index = replies ? replyIndex(messages, replies) : -1;
    const found = replies?.[index];
    if (!found) return { status: 500, headers: { "Content-Type": "application/json" }, pieces: [delayMs, '{"error":{"code":500,"message":"no scripted reply left for this conversation"}}'] };
    const scene = replyScene(options.trait ? options.trait(found, index, replies!) : found, request.body?.max_tokens);
    return { ...scene, pieces: [delayMs, ...scene.pieces] };
  });
}

/**
 * Which reply comes next, from the conversation alone: one past the script reply whose tool-call
 * id the newest assistant message carries, or one past the reply that wrote the newest summary
 * when that came later (a summary replaces the middle, so counting messages would not do).
 */
function replyIndex(messages: Array<{ role: string; content?: string; tool_calls?: Array<{ id: string }> }>, replies: ScriptReply[]): number {
  // A script with replies marked for summaries answers a summary request, whenever it comes, with the first of them.
  const marked = (reply: ScriptReply | undefined) => reply?.answers === "summary";
  if (replies.some(marked)) {
    if (messages.at(-1)?.content === SUMMARY_REQUEST) return replies.findIndex(marked);
    let next = inOrder(messages, replies);
    while (marked(replies[next])) next++;
    return next;
  }
  return inOrder(messages, replies);
}

function inOrder(messages: Array<{ role: string; content?: string; tool_calls?: Array<{ id: string }> }>, replies: ScriptReply[]): number {
  const lastCall = messages.findLast((message) => message.role === "assistant" && message.tool_calls?.length)?.tool_calls?.at(-1)?.id;
  const byId = lastCall === undefined ? -1 : replies.findIndex((reply) => reply.tool_calls?.some((call) => call.id === lastCall));
  // Calls a script writes as text get their ids from glassbox (s<step>c<n>), not the script: count the replies instead.
  const answered = lastCall !== undefined && byId < 0 ? messages.filter((message) => message.role === "assistant").length - 1 : byId;
  const note = messages.findLast((message) => message.role === "user" && message.content?.includes(SUMMARY_NOTE_MARK))?.content;
  const summary = note?.split(SUMMARY_NOTE_MARK)[1]!.split("\n\nYour todo list:")[0]!.trim();
  const summarized = summary === undefined ? -1 : replies.findIndex((reply) => (reply.content ?? "").trim() === summary);
  return Math.max(answered, summarized) + 1;
}

/** A reply as llama.cpp streams it; one longer than `maxTokens` words (a word a token) is cut there, its calls never written, as a server cuts at the reply cap. */
function replyScene(reply: ScriptReply, maxTokens?: number): Scene {
  const words = reply.content?.match(/\S+\s*|\s+/g) ?? [];
  if (maxTokens !== undefined && words.length > maxTokens) {
    return { status: 200, headers: SSE_HEADERS, pieces: [llamaChunk({ role: "assistant", content: null }), llamaChunk({ content: words.slice(0, maxTokens).join("") }), llamaChunk({}, "length"), "data: [DONE]\n\n"] };
  }
  const calls = (reply.tool_calls ?? []).map((call, index) =>
    llamaChunk({ tool_calls: [{ index, id: call.id ?? `call${index}`, type: "function", function: { name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}) } }] }),
  );
  return {
    status: 200,
    headers: SSE_HEADERS,
    pieces: [
      llamaChunk({ role: "assistant", content: null }),
      ...(reply.content ? [llamaChunk({ content: reply.content })] : []),
      ...calls,
      llamaChunk({}, calls.length ? "tool_calls" : "stop"),
      "data: [DONE]\n\n",
    ],
  };
}
