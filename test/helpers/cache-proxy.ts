import type { CachedReply } from "./cache-server.ts";
import { llamaChunk, SSE_HEADERS } from "./fake-server.ts";

/** One chat request as the real llama-server processed it. */
export interface ProxyRecord {
  /** `usage.prompt_tokens`: the whole prompt, counted by the server's tokenizer. */
  promptTokens: number;
  /** `timings.prompt_n`: the prompt tokens the server processed, the rest came from its cache. */
  processed: number;
  /** `timings.cache_n`: the prompt tokens taken from the cache. */
  cached: number;
  /** `timings.prompt_ms`: how long the server took over the tokens it processed. */
  prefillMs: number;
  messages: Array<{ role: string; content: string | null }>;
}

export interface CacheProxy {
  url: string;
  records: ProxyRecord[];
  stop(): void;
}

/**
 * A llama-server on 127.0.0.1 whose prompts are processed by a real one (`server`) and whose
 * replies are scripted (`respond`): each chat request goes on to the real server for one token,
 * unstreamed, so its prompt cache does exactly the work a real run would make it do, and the
 * adapter gets the scripted reply in llama.cpp's SSE shape with the real server's usage and
 * timings. `/props` says the context window is `window` (the real server runs larger, so one
 * server serves every window); everything else (`/health`, `/apply-template`, `/tokenize`, …)
 * passes through as it is.
 */
export function startCacheProxy(window: number, server: string, respond: (messages: any[], request: number) => CachedReply): CacheProxy {
  const records: ProxyRecord[] = [];
  const proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // The real server may take a while over a long prompt; Bun's default idle timeout is 10 s.
    idleTimeout: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/props") return props(server, window);
      if (path !== "/v1/chat/completions") return forward(server, path, request);
      const body = (await request.json()) as any;
      const processed = await processPrompt(server, body);
      if (processed instanceof Response) return processed;
      records.push({ ...processed, messages: body.messages ?? [] });
      return scriptedReply(respond(body.messages ?? [], records.length), processed, records.length);
    },
  });
  return { url: `http://127.0.0.1:${proxy.port}`, records, stop: () => proxy.stop(true) };
}

/** The real server's /props with its per-slot window replaced by the bench's. */
async function props(server: string, window: number): Promise<Response> {
  const real = (await (await fetch(`${server}/props`)).json()) as any;
  return Response.json({ ...real, default_generation_settings: { ...real.default_generation_settings, n_ctx: window } });
}

async function forward(server: string, path: string, request: Request): Promise<Response> {
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  const answer = await fetch(`${server}${path}`, { method: request.method, headers: { "Content-Type": request.headers.get("Content-Type") ?? "application/json" }, body });
  return new Response(await answer.arrayBuffer(), { status: answer.status, headers: { "Content-Type": answer.headers.get("Content-Type") ?? "application/json" } });
}

/**
 * The request's prompt through the real server: the body as the adapter sent it (messages,
 * tools, `cache_prompt`), for one token and unstreamed, as that token is thrown away. The
 * server's own figures come back, or its error response as it is (a prompt over its window).
 */
async function processPrompt(server: string, body: any): Promise<Omit<ProxyRecord, "messages"> | Response> {
  const { stream_options: _, ...rest } = body;
  const answer = await fetch(`${server}/v1/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ ...rest, stream: false, max_tokens: 1 }),
  });
  if (!answer.ok) return new Response(await answer.text(), { status: answer.status, headers: { "Content-Type": "application/json" } });
  const { usage, timings } = (await answer.json()) as any;
  return { promptTokens: usage.prompt_tokens, processed: timings.prompt_n, cached: timings.cache_n, prefillMs: timings.prompt_ms };
}

/** The scripted reply as llama-server streams one, its usage and timings the real server's. */
function scriptedReply(reply: CachedReply, real: Omit<ProxyRecord, "messages">, request: number): Response {
  const call = "call" in reply ? reply.call : null;
  const usage = { completion_tokens: 20, prompt_tokens: real.promptTokens, total_tokens: real.promptTokens + 20, prompt_tokens_details: { cached_tokens: real.cached } };
  const timings = { cache_n: real.cached, prompt_n: real.processed, prompt_ms: real.prefillMs, predicted_n: 20 };
  const pieces = [
    llamaChunk({ role: "assistant", content: null }),
    call
      ? llamaChunk({ tool_calls: [{ index: 0, id: `call${request}`, type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } }] })
      : llamaChunk({ content: (reply as { text: string }).text }),
    llamaChunk({}, call ? "tool_calls" : "stop"),
    `data: ${JSON.stringify({ choices: [], created: 1796011079, id: "chatcmpl-proxy", model: "proxy", object: "chat.completion.chunk", usage, timings })}\n\n`,
    "data: [DONE]\n\n",
  ];
  return new Response(pieces.join(""), { headers: SSE_HEADERS });
}
