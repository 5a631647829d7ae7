import { decodeArguments } from "../protocol/canonical.ts";
import type { Message } from "../protocol/messages.ts";
import type { WireLog } from "../trace/wire-log.ts";
import { fetchJson, replyExchange, ServerExchange, WaitNotices, withWaitNotices } from "./http.ts";
import { loggedReply } from "./logged-reply.ts";
import { windowOf, type ModelOptions } from "./options.ts";
import { ModelError, type ModelClient, type ModelDelta, type ModelRequest } from "../protocol/model.ts";
import { wellTyped } from "./delta-shape.ts";
import { Reconnect } from "./reconnect.ts";

/**
 * Ollama's `/api/chat`: newline-delimited JSON. Tool calls arrive whole, arguments as an object;
 * the last line has `done: true` and the counters. `options.num_ctx` is always sent: without it
 * the server keeps a small default window and silently cuts the front of a longer prompt.
 */
export class OllamaModel implements ModelClient {
  private contextTokens: number | null | undefined;
  private readonly reconnect: Reconnect;

  constructor(
    readonly name: string,
    private readonly model: string,
    private readonly baseUrl: string,
    private readonly options: ModelOptions,
    private readonly wire?: WireLog,
  ) {
    this.reconnect = new Reconnect(options.reconnect_seconds);
  }

  /** The window this client asks for, bounded by what the model was trained for. */
  async contextSize(signal: AbortSignal): Promise<number | null> {
    if (this.contextTokens !== undefined) return this.contextTokens;
    let trained: number | null = null;
    try {
      const show = await fetchJson(`${this.baseUrl}/api/show`, { model: this.model }, signal);
      trained = modelContextLength(show.json);
    } catch (error) {
      if (signal.aborted) throw error;
    }
    this.contextTokens = trained ? Math.min(trained, windowOf(this.options)) : windowOf(this.options);
    return this.contextTokens;
  }

  /** Ollama's `tools` capability of the model (/api/show), which its template declares. */
  async templateTools(signal: AbortSignal): Promise<boolean | null> {
    try {
      const capabilities = (await fetchJson(`${this.baseUrl}/api/show`, { model: this.model }, signal)).json?.capabilities;
      return Array.isArray(capabilities) ? capabilities.includes("tools") : null;
    } catch (error) {
      if (signal.aborted) throw error;
      return null;
    }
  }

  async *reply(request: ModelRequest): AsyncIterable<ModelDelta> {
    const url = `${this.baseUrl}/api/chat`;
    const body = JSON.stringify(this.body(request));
    let status = 0;
    // One whole exchange; the server restarting makes another (reconnect.ts).
    const attempt = () => {
      const waits = new WaitNotices();
      const logged = loggedReply(this.wire, url, body, () => status, async function* (this: OllamaModel) {
        const exchange = replyExchange(url, this.options, request.signal, waits);
        const response = await this.reconnect.response(exchange.send({ method: "POST", body, reply: true }));
        status = response.status;
        if (!response.ok) throw this.httpError(url, await exchange.failure(response));
        yield* ndjsonDeltas(exchange, response);
      }.bind(this));
      return withWaitNotices(logged, waits);
    };
    yield* this.reconnect.reply(attempt, request.signal);
  }

  /** Fixed key order, nothing per request: a stable prefix keeps the server's prompt cache warm. */
  private body(request: ModelRequest): Record<string, unknown> {
    const o = this.options;
    return {
      model: this.model,
      messages: request.messages.map(ollamaMessage),
      ...(request.tools.length
        ? { tools: request.tools.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } })) }
        : {}),
      stream: true,
      ...(o.think !== undefined ? { think: o.think } : {}),
      options: {
        num_ctx: windowOf(o),
        num_predict: o.max_tokens,
        ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
        ...(o.seed !== undefined ? { seed: o.seed } : {}),
      },
      ...o.extra_body,
    };
  }

  private httpError(url: string, failure: { status: number; excerpt: string; json: any }): Error {
    const message = typeof failure.json?.error === "string" ? failure.json.error : failure.excerpt;
    if (failure.status === 404 && /not found|pull/i.test(message)) {
      return new ModelError(`model ${this.model} is not pulled on ${this.baseUrl}: run \`ollama pull ${this.model}\``);
    }
    return new ModelError(`${url} answered HTTP ${failure.status}: ${message || "no body"}`);
  }
}

export function modelContextLength(show: any): number | null {
  const info = show?.model_info ?? {};
  for (const [key, value] of Object.entries(info)) {
    if (key.endsWith(".context_length") && typeof value === "number") return value;
  }
  return null;
}

function ollamaMessage(message: Message): Record<string, unknown> {
  switch (message.role) {
    case "assistant": {
      const calls = message.tool_calls ?? [];
      return {
        role: "assistant",
        content: message.content,
        ...(calls.length
          ? {
              tool_calls: calls.map((call) => {
                const args = decodeArguments(call.arguments);
                return { function: { name: call.name, arguments: args && typeof args === "object" && !Array.isArray(args) ? args : {} } };
              }),
            }
          : {}),
      };
    }
    case "tool":
      return { role: "tool", content: message.content, tool_name: message.name };
    default:
      return { role: message.role, content: message.content };
  }
}

/** The body split into lines, the last one even without its newline. */
async function* lines(exchange: ServerExchange, response: Response): AsyncGenerator<string> {
  let buffer = "";
  for await (const text of exchange.text(response)) {
    buffer += text;
    const complete = buffer.split("\n");
    buffer = complete.pop() ?? "";
    yield* complete;
  }
  if (buffer) yield buffer;
}

async function* ndjsonDeltas(exchange: ServerExchange, response: Response): AsyncGenerator<ModelDelta> {
  let calls = 0;
  for await (const line of lines(exchange, response)) {
    if (!line.trim()) continue;
    let chunk: any;
    try {
      chunk = JSON.parse(line);
    } catch {
      throw new ModelError(`${exchange.url} sent a line that is not valid JSON: ${line.slice(0, 120)}`);
    }
    if (chunk?.error) throw new ModelError(`${exchange.url} reported an error mid-reply: ${chunk.error}`);
    // Valid JSON of another shape (null, a list where an object goes, a number for text) is the server's fault, said by name.
    let deltas: ModelDelta[] | null = null;
    try {
      deltas = lineDeltas(chunk, calls);
    } catch {}
    if (!deltas?.every(wellTyped)) throw new ModelError(`${exchange.url} sent a line that is not a chat reply: ${line.slice(0, 120)}`);
    calls += deltas.filter((delta) => delta.type === "tool_call").length;
    yield* deltas;
    if (chunk.done) return;
  }
  throw new ModelError(`${exchange.url} ended the stream without its final "done" line`);
}

/** One line's deltas; its tool calls are numbered from `calls` on. */
function lineDeltas(chunk: any, calls: number): ModelDelta[] {
  const deltas: ModelDelta[] = [];
  const message = chunk.message ?? {};
  if (message.thinking) deltas.push({ type: "thinking", text: message.thinking });
  if (message.content) deltas.push({ type: "text", text: message.content });
  for (const call of message.tool_calls ?? []) {
    const index = calls++;
    deltas.push({ type: "tool_call", index, id: call.id, name: call.function?.name, arguments: call.function?.arguments ?? {} });
  }
  if (chunk.done) {
    const seconds = (chunk.eval_duration ?? 0) / 1e9;
    deltas.push({
      type: "usage",
      prompt_tokens: chunk.prompt_eval_count ?? 0,
      gen_tokens: chunk.eval_count ?? 0,
      ...(seconds > 0 ? { tokens_per_second: (chunk.eval_count ?? 0) / seconds } : {}),
      // Ollama says how long the prompt took (nanoseconds), not how much of it came from its cache.
      cached_tokens: null,
      prefill_ms: typeof chunk.prompt_eval_duration === "number" ? chunk.prompt_eval_duration / 1e6 : null,
      timings: pick(chunk, ["total_duration", "load_duration", "prompt_eval_duration", "eval_duration"]),
    });
    deltas.push({ type: "done", finish_reason: chunk.done_reason ?? "stop" });
  }
  return deltas;
}

function pick(source: any, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => source[key] !== undefined).map((key) => [key, source[key]]));
}
