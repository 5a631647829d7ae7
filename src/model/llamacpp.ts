import { createParser } from "eventsource-parser";
import { argumentsText, type Message } from "../protocol/messages.ts";
import type { WireLog } from "../trace/wire-log.ts";
import { fetchJson, replyExchange, ServerExchange, WaitNotices, withWaitNotices } from "./http.ts";
import { loggedReply } from "./logged-reply.ts";
import { belowTopTier } from "../platform/jit.ts";
import type { ModelOptions } from "./options.ts";
import { NO_ACCESS, keyRefusal, type ServerAccess } from "./access.ts";
import { Reconnect, loadingModel } from "./reconnect.ts";
import { wellTyped } from "./delta-shape.ts";
import { ModelError, joinTextDeltas, type ModelClient, type ModelDelta, type ModelRequest, type ToolDeclaration } from "../protocol/model.ts";

/**
 * llama.cpp's `llama-server`, through its OpenAI-compatible `/v1/chat/completions` with Server-Sent
 * Events. Facts from real captures (shared/fixtures/llamacpp-wire): an error before the first
 * token is a plain JSON HTTP error even when streaming; an error after it is a `data: {"error"}`
 * event with no `[DONE]`; tool-call arguments arrive as raw text fragments by index.
 */
export class LlamaCppModel implements ModelClient {
  /** An older server refuses tools with streaming; then tool requests go unstreamed. */
  private streamTools = true;
  private contextTokens: number | null | undefined;
  /** false once the server has shown it cannot count a prompt (no /apply-template or /tokenize). */
  private canCount = true;
  private readonly reconnect: Reconnect;

  constructor(
    readonly name: string,
    private readonly baseUrl: string,
    private readonly options: ModelOptions,
    private readonly wire?: WireLog,
    private readonly served: ServedBy = LLAMA_CPP,
  ) {
    this.reconnect = new Reconnect(options.reconnect_seconds);
  }

  /** llama.cpp's window per slot (/props); another server's, where its model list says (vLLM's max_model_len). */
  async contextSize(signal: AbortSignal): Promise<number | null> {
    if (this.contextTokens !== undefined) return this.contextTokens;
    try {
      this.contextTokens = this.served.llamaCpp ? await this.slotWindow(signal) : await this.listedWindow(signal);
    } catch (error) {
      if (signal.aborted) throw error;
      this.contextTokens = null;
    }
    return this.contextTokens;
  }

  /** llama.cpp's /props `chat_template_caps.supports_tools`; another server's template is not known (null). */
  async templateTools(signal: AbortSignal): Promise<boolean | null> {
    if (!this.served.llamaCpp) return null;
    try {
      const caps = (await fetchJson(`${this.baseUrl}/props`, undefined, signal, undefined, this.served.access)).json?.chat_template_caps;
      return typeof caps?.supports_tools === "boolean" ? caps.supports_tools : null;
    } catch (error) {
      if (signal.aborted) throw error;
      return null;
    }
  }

  private async slotWindow(signal: AbortSignal): Promise<number | null> {
    const n = (await fetchJson(`${this.baseUrl}/props`, undefined, signal, undefined, this.served.access)).json?.default_generation_settings?.n_ctx;
    return typeof n === "number" ? n : null;
  }

  private async listedWindow(signal: AbortSignal): Promise<number | null> {
    const models = (await fetchJson(`${this.baseUrl}/v1/models`, undefined, signal, undefined, this.served.access)).json?.data;
    const listed = Array.isArray(models) ? models.find((model: { id?: unknown }) => model.id === this.served.model) : null;
    return typeof listed?.max_model_len === "number" ? listed.max_model_len : null;
  }

  /**
   * The prompt rendered by the server's own template (`/apply-template`, tools included) and
   * counted by its tokenizer (`/tokenize`): the figure its window is measured in, where the
   * estimate from characters was 19-27% low on Qwen2.5's template. Not in the wire log: the
   * messages are the same as the request's that follows, which is.
   */
  async countPromptTokens(messages: Message[], tools: ToolDeclaration[], signal: AbortSignal): Promise<number | null> {
    if (!this.canCount || !this.served.llamaCpp) return null;
    try {
      const rendered = await fetchJson(`${this.baseUrl}/apply-template`, this.templateInput({ messages, tools, signal }), signal, undefined, this.served.access);
      const prompt = rendered.json?.prompt;
      const counted = typeof prompt === "string" ? await fetchJson(`${this.baseUrl}/tokenize`, { content: prompt }, signal, undefined, this.served.access) : null;
      const tokens = counted?.json?.tokens;
      if (Array.isArray(tokens)) return tokens.length;
    } catch (error) {
      if (signal.aborted) throw error;
    }
    // Not asked again: a server without these endpoints would cost two failed requests a step.
    this.canCount = false;
    return null;
  }

  async *reply(request: ModelRequest): AsyncIterable<ModelDelta> {
    const stream = this.streamTools || request.tools.length === 0;
    const url = `${this.baseUrl}/v1/chat/completions`;
    const body = JSON.stringify(this.body(request, stream));
    let status = 0;
    // One whole exchange; the server restarting or loading its model makes another (reconnect.ts).
    const attempt = () => {
      const waits = new WaitNotices();
      const logged = loggedReply(this.wire, url, body, () => status, async function* (this: LlamaCppModel) {
        const exchange = replyExchange(url, this.options, request.signal, waits, this.served.access);
        const response = await this.reconnect.response(exchange.send({ method: "POST", body, reply: true }));
        status = response.status;
        if (!response.ok) throw this.httpError(url, await exchange.failure(response));
        if (stream) yield* streamedDeltas(exchange, response);
        else yield* completionDeltas(await exchange.json(response));
      }.bind(this));
      return withWaitNotices(logged, waits);
    };
    try {
      yield* this.reconnect.reply(attempt, request.signal);
    } catch (error) {
      if (error instanceof ToolsNeedNoStream && stream) {
        this.streamTools = false;
        yield { type: "notice", text: `${this.baseUrl} cannot stream tool calls (an older llama.cpp); tool requests are sent unstreamed from now on` };
        yield* this.reply(request);
        return;
      }
      throw error;
    }
  }

  /** What the chat template renders: the messages, the tools and the template's own arguments. */
  private templateInput(request: ModelRequest): Record<string, unknown> {
    const o = this.options;
    const kwargs = { ...o.chat_template_kwargs, ...(o.think !== undefined ? { enable_thinking: o.think } : {}) };
    return {
      messages: request.messages.map(openAiMessage),
      ...(request.tools.length ? { tools: request.tools.map(openAiTool) } : {}),
      ...(request.tools.length && o.tool_choice ? { tool_choice: o.tool_choice } : {}),
      ...(Object.keys(kwargs).length ? { chat_template_kwargs: kwargs } : {}),
    };
  }

  /** The request body, built in a fixed key order with nothing per request: a stable prefix keeps the server's prompt cache warm. */
  private body(request: ModelRequest, stream: boolean): Record<string, unknown> {
    const o = this.options;
    const { chat_template_kwargs, ...rendered } = this.templateInput(request);
    return {
      ...(this.served.model ? { model: this.served.model } : {}),
      ...rendered,
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
      // llama-server reuses the previous prompt's KV cache up to the first change (its default, said explicitly).
      ...(this.served.llamaCpp ? { cache_prompt: true } : {}),
      max_tokens: o.max_tokens,
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(chat_template_kwargs ? { chat_template_kwargs } : {}),
      ...o.extra_body,
    };
  }

  private httpError(url: string, failure: { status: number; excerpt: string; json: any }): Error {
    const refused = keyRefusal(failure.status, this.served.access);
    if (refused) return new ModelError(refused);
    const loading = loadingModel(url, failure);
    if (loading) return loading;
    const error = failure.json?.error;
    if (error?.type === "exceed_context_size_error") {
      return new ModelError(
        `the prompt (${error.n_prompt_tokens} tokens) does not fit the server's context window (${error.n_ctx} tokens)`,
        "context_limit",
      );
    }
    if (failure.status === 500 && /Cannot use tools with stream/i.test(error?.message ?? "")) return new ToolsNeedNoStream();
    // Older vLLM sent its error's fields flat ({"object": "error", "message": …}), not under "error".
    const message = error?.message ?? (failure.json?.object === "error" ? failure.json.message : undefined);
    // vLLM's and OpenAI's words for a prompt over the window ("This model's maximum context length is 32768 tokens. However, …").
    if (failure.status === 400 && /maximum context length/i.test(message ?? "")) return new ModelError(`the server refused the prompt as over its window: ${message}`, "context_limit");
    return new ModelError(`${url} answered HTTP ${failure.status}: ${message ?? failure.excerpt ?? "no body"}`);
  }
}

class ToolsNeedNoStream extends Error {}

/**
 * Who serves the OpenAI-compatible API: llama.cpp gets its extras (the prompt cache flag, /props,
 * counting the prompt); any other server (vLLM, SGLang, LM Studio…) is sent the model's name,
 * which it needs, and nothing of llama.cpp's own.
 */
export interface ServedBy {
  llamaCpp: boolean;
  /** The `model` field of each request (openai:); absent for llama-server, which serves one. */
  model?: string;
  access: ServerAccess;
}

export const LLAMA_CPP: ServedBy = { llamaCpp: true, access: NO_ACCESS };

function openAiMessage(message: Message): Record<string, unknown> {
  switch (message.role) {
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        ...(message.tool_calls?.length
          ? { tool_calls: message.tool_calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: argumentsText(call.arguments) } })) }
          : {}),
      };
    case "tool":
      return { role: "tool", tool_call_id: message.tool_call_id, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

function openAiTool(tool: ToolDeclaration): Record<string, unknown> {
  return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

/** Server-Sent Events to deltas. Keep-alive comments only prove the server is alive. */
async function* streamedDeltas(exchange: ServerExchange, response: Response): AsyncGenerator<ModelDelta> {
  const pending: ModelDelta[] = [];
  let finished = false;
  let failure: Error | null = null;
  const openCalls = new Set<number>();
  const parser = createParser({
    onEvent(event) {
      if (failure || finished) return;
      if (event.data === "[DONE]") {
        finished = true;
        return;
      }
      const content = contentOnly(event.data);
      if (content !== null) {
        if (content) pending.push({ type: "text", text: content });
        return;
      }
      let chunk: any;
      try {
        chunk = JSON.parse(event.data);
      } catch {
        failure = new ModelError(`${exchange.url} sent an event that is not valid JSON: ${event.data.slice(0, 120)}`);
        return;
      }
      if (chunk?.error) {
        failure = new ModelError(`${exchange.url} reported an error mid-reply: ${chunk.error.message ?? JSON.stringify(chunk.error)}`);
        return;
      }
      // Valid JSON of another shape (null, a list where an object goes, a number for a name) is the server's fault, said by name.
      let deltas: ModelDelta[] | null = null;
      try {
        deltas = chunkDeltas(chunk, openCalls);
      } catch {}
      if (!deltas?.every(wellTyped)) {
        failure = new ModelError(`${exchange.url} sent an event that is not a chat completion chunk: ${event.data.slice(0, 120)}`);
        return;
      }
      pending.push(...deltas);
    },
  });
  const cut = () => (openCalls.size ? ": a tool call was cut off in the middle of its arguments" : "");
  try {
    for await (const text of exchange.text(response)) {
      parser.feed(text);
      yield* joinTextDeltas(pending.splice(0));
      if (failure) throw failure;
      if (finished) return;
    }
  } catch (error) {
    if (error instanceof ModelError && error !== failure && cut()) throw new ModelError(error.message + cut(), error.status);
    throw error;
  }
  throw new ModelError(`${exchange.url} ended the stream without [DONE]${cut()}`);
}

/** How a llama.cpp chunk that carries nothing but the next piece of text begins. */
const CONTENT_CHUNK = '{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"';

/**
 * The text of a chunk that carries only text, read without parsing the whole chunk: nearly every
 * chunk of a reply is one, and JSON.parse of the whole envelope was the largest single cost of a
 * streamed token. Anything else (a role, a finish reason, a tool call, usage, timings, an error,
 * another key order) is null, and the caller parses the chunk in full.
 */
export function contentOnly(data: string): string | null {
  if (!data.startsWith(CONTENT_CHUNK)) return null;
  const start = CONTENT_CHUNK.length - 1; // the string's opening quote
  let end = start;
  for (;;) {
    end = data.indexOf('"', end + 1);
    if (end < 0) return null;
    let backslashes = 0;
    while (data.charCodeAt(end - 1 - backslashes) === 92) backslashes++;
    if (backslashes % 2 === 0) break; // not an escaped quote: the string ends here
  }
  if (!data.startsWith("}}]", end + 1)) return null;
  const rest = data.slice(end + 4);
  if (!rest.endsWith("}") || rest.includes('"usage"') || rest.includes('"timings"') || rest.includes('"error"')) return null;
  const literal = data.slice(start, end + 1);
  // Escapes, and the control characters JSON forbids raw, go through JSON.parse, which also refuses what it should.
  if (!/[\\\u0000-\u001f]/.test(literal)) return literal.slice(1, -1);
  try {
    return JSON.parse(literal) as string;
  } catch {
    return null;
  }
}

// Per chunk of every reply (belowTopTier says why).
belowTopTier(contentOnly);

function chunkDeltas(chunk: any, openCalls: Set<number>): ModelDelta[] {
  const deltas: ModelDelta[] = [];
  const choice = chunk.choices?.[0];
  const delta = choice?.delta ?? {};
  if (typeof delta.reasoning_content === "string" && delta.reasoning_content) deltas.push({ type: "thinking", text: delta.reasoning_content });
  if (typeof delta.content === "string" && delta.content) deltas.push({ type: "text", text: delta.content });
  for (const call of delta.tool_calls ?? []) {
    openCalls.add(call.index ?? 0);
    deltas.push({ type: "tool_call", index: call.index ?? 0, id: call.id, name: call.function?.name, arguments: call.function?.arguments });
  }
  if (choice?.finish_reason) {
    openCalls.clear();
    deltas.push({ type: "done", finish_reason: choice.finish_reason });
  }
  if (chunk.usage) deltas.push(usageDelta(chunk.usage, chunk.timings));
  return deltas;
}

/**
 * Usage, and what the prompt cache saved: llama-server's `timings.cache_n` (prompt tokens taken
 * from the cache) and `timings.prompt_ms` (prefill time), else OpenAI's
 * `usage.prompt_tokens_details.cached_tokens` where a server sends that instead.
 */
function usageDelta(usage: any, timings: any): ModelDelta {
  const cached = numberOrNull(timings?.cache_n) ?? numberOrNull(usage.prompt_tokens_details?.cached_tokens);
  return {
    type: "usage",
    prompt_tokens: usage.prompt_tokens ?? 0,
    gen_tokens: usage.completion_tokens ?? 0,
    cached_tokens: cached,
    prefill_ms: numberOrNull(timings?.prompt_ms),
    ...(typeof timings?.predicted_per_second === "number" ? { tokens_per_second: timings.predicted_per_second } : {}),
    ...(timings ? { timings } : {}),
  };
}

function numberOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** A non-streamed `chat.completion`, for servers that cannot stream tool calls. */
function* completionDeltas(completion: any): Generator<ModelDelta> {
  const choice = completion?.choices?.[0];
  if (!choice) throw new ModelError(`the server's reply has no choices: ${JSON.stringify(completion).slice(0, 200)}`);
  const message = choice.message ?? {};
  if (message.reasoning_content) yield { type: "thinking", text: message.reasoning_content };
  if (message.content) yield { type: "text", text: message.content };
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    yield { type: "tool_call", index, id: call.id, name: call.function?.name, arguments: call.function?.arguments };
  }
  if (completion.usage) yield usageDelta(completion.usage, completion.timings);
  yield { type: "done", finish_reason: choice.finish_reason ?? null };
}
