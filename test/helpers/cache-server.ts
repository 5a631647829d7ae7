import { llamaChunk, readFixture, SSE_HEADERS, startFakeServer, type FakeServer } from "./fake-server.ts";

/** What the fake server's model says next: a tool call, or text. */
export type CachedReply = { call: { name: string; arguments: Record<string, unknown> } } | { text: string };

/** One chat request as the fake llama-server saw it, with what its prompt cache saved. */
export interface CacheRecord {
  /** The rendered prompt's length in characters, and the characters it shared with the previous prompt. */
  chars: number;
  reused: number;
  promptTokens: number;
  cachedTokens: number;
  /** The request carried the tools block (its length in characters; 0 when absent). */
  toolsChars: number;
  messages: Array<{ role: string; content: string | null }>;
}

export interface CacheServer {
  url: string;
  records: CacheRecord[];
  stop(): void;
}

/** The fake's tokenizer: four characters a token, near what real tokenizers give English and code. */
export const CHARS_PER_TOKEN = 4;
/** The fake's prefill speed, for `timings.prompt_ms`: a laptop's few hundred prompt tokens a second. */
const PREFILL_TOKENS_PER_SECOND = 300;

/**
 * The prompt as a chat template renders it: the tools block first (inside the system turn, as
 * Qwen's template in shared/fixtures/llamacpp-wire/00-props.json does), then every message in
 * order. A request with another tools block differs from its very start.
 */
export function renderPrompt(body: { messages?: any[]; tools?: unknown[] }): { text: string; toolsChars: number } {
  const tools = body.tools?.length ? `<tools>\n${body.tools.map((tool) => JSON.stringify(tool)).join("\n")}\n</tools>\n` : "";
  const messages = (body.messages ?? []).map((message) => {
    const calls = (message.tool_calls ?? []).map((call: any) => `\n<tool_call>\n{"name": "${call.function?.name}", "arguments": ${call.function?.arguments}}\n</tool_call>`).join("");
    return `<|im_start|>${message.role}\n${message.content ?? ""}${calls}<|im_end|>\n`;
  });
  return { text: tools + messages.join(""), toolsChars: tools.length };
}

/**
 * A llama-server on 127.0.0.1 with one slot and a prompt cache that works as llama-server's does:
 * the previous prompt is kept, and a new one is processed only from the first character where
 * the two differ (the longest common prefix; llama.cpp compares tokens, the same thing at this
 * grain). Replies carry `usage` and `timings` in the captured shape (shared/fixtures/llamacpp-wire/03-usage.sse):
 * `timings.cache_n` the reused tokens, `timings.prompt_ms` the time for the rest.
 */
export function startCacheServer(window: number, respond: (messages: any[], request: number) => CachedReply): CacheServer {
  const props = readFixture("llamacpp-wire/00-props.json").replace('"n_ctx":4096', `"n_ctx":${window}`);
  const records: CacheRecord[] = [];
  let previous = "";
  const server: FakeServer = startFakeServer((request) => {
    if (request.path === "/props") return { status: 200, headers: { "Content-Type": "application/json" }, pieces: [props] };
    const { text, toolsChars } = renderPrompt(request.body ?? {});
    const reused = commonPrefix(previous, text);
    previous = text;
    const promptTokens = Math.ceil(text.length / CHARS_PER_TOKEN);
    const cachedTokens = Math.floor(reused / CHARS_PER_TOKEN);
    const messages = request.body?.messages ?? [];
    records.push({ chars: text.length, reused, promptTokens, cachedTokens, toolsChars, messages });
    const reply = respond(messages, records.length);
    const call = "call" in reply ? reply.call : null;
    const timings = { cache_n: cachedTokens, prompt_n: promptTokens - cachedTokens, prompt_ms: ((promptTokens - cachedTokens) / PREFILL_TOKENS_PER_SECOND) * 1000, predicted_n: 20, predicted_per_second: 20 };
    const usage = { completion_tokens: 20, prompt_tokens: promptTokens, total_tokens: promptTokens + 20, prompt_tokens_details: { cached_tokens: cachedTokens } };
    return {
      status: 200,
      headers: SSE_HEADERS,
      pieces: [
        llamaChunk({ role: "assistant", content: null }),
        call
          ? llamaChunk({ tool_calls: [{ index: 0, id: `call${records.length}`, type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } }] })
          : llamaChunk({ content: (reply as { text: string }).text }),
        llamaChunk({}, call ? "tool_calls" : "stop"),
        `data: ${JSON.stringify({ choices: [], created: 1796011079, id: "chatcmpl-cache", model: "models/tiny-32k.gguf", object: "chat.completion.chunk", usage, timings })}\n\n`,
        "data: [DONE]\n\n",
      ],
    };
  });
  return { url: server.url, records, stop: () => server.stop() };
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
