import { isLoopbackHttp, loopbackFetch } from "./loopback.ts";
import { ModelError, type ModelDelta } from "../protocol/model.ts";
import type { ModelOptions } from "./options.ts";
import { NO_ACCESS, certificateProblem, requestHeaders, tlsOptions, type ServerAccess } from "./access.ts";

/**
 * A fast server's body is read at most once every this many milliseconds: what arrived in between
 * comes as one piece, and a read costs about the same whether it carries one token or twenty
 * (at 2,000 tokens a second, reading as fast as chunks came took 2,700 reads and 4% of a core
 * over 3 s; every 8 ms, 370 reads and 3%; every 16 ms, bench:tui's Markdown stream took 1.5
 * points of a core less than at 8, for up to 8 ms more before the last words show). A server
 * slower than one chunk per interval (a laptop's model: 20-100 tokens a second) is read the
 * moment each chunk arrives.
 */
export const READ_INTERVAL_MS = 16;

/**
 * How long a model's reply may take to begin, and where the exchange says it is still waiting.
 * A server on another machine queues requests under load: the wait for the first byte of the
 * body is not a stall, and is shown as waiting rather than cut at the idle timeout.
 */
export interface FirstByteWait {
  ms: number;
  notices: WaitNotices;
}

/**
 * One HTTP exchange with a model server, with every way it can fail turned into a ModelError
 * whose reason names the address and what happened. A watchdog aborts the request when no byte
 * arrives for the idle timeout (a stalled server), whether waiting for headers or mid-body, or,
 * for a reply with a FirstByteWait, when its body has not begun within that wait; the caller's
 * signal (user stop, deadline) aborts it at once and is passed through untouched.
 */
export class ServerExchange {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private noticeTimer: ReturnType<typeof setInterval> | undefined;
  /** When the last byte (or the request) went by: the watchdog compares against it. */
  private lastActivity = 0;
  private stalled = false;
  private bodyBegun = false;
  private readonly onOuterAbort = () => this.controller.abort();

  constructor(
    readonly url: string,
    private readonly idleMs: number,
    private readonly outer: AbortSignal,
    private readonly access: ServerAccess = NO_ACCESS,
    private readonly firstByte?: FirstByteWait,
  ) {
    outer.addEventListener("abort", this.onOuterAbort, { once: true });
    if (outer.aborted) this.controller.abort();
  }

  /**
   * `reply`: a model's reply, read piece by piece as it streams. From a server on this machine it
   * comes through a socket paused between reads (loopback.ts); everything else, and the small
   * endpoints asked at start (health, props), go through fetch, which is native and warm then.
   */
  async send(init: { method: "GET" | "POST"; body?: string; reply?: boolean }): Promise<Response> {
    this.kick();
    this.sayWhileWaiting();
    try {
      const request = {
        method: init.method,
        body: init.body,
        headers: { ...(init.body !== undefined ? { "Content-Type": "application/json" } : {}), ...requestHeaders(this.access) },
        signal: this.controller.signal,
      };
      const tls = tlsOptions(this.access);
      return await (init.reply && isLoopbackHttp(this.url) ? loopbackFetch(this.url, request) : fetch(this.url, tls ? { ...request, tls } : request));
    } catch (error) {
      throw this.translate(error);
    }
  }

  /** The body as decoded text pieces, each one resetting the stall timer. */
  async *text(response: Response): AsyncGenerator<string> {
    if (!response.body) return;
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    let lastRead = -Infinity;
    try {
      for (;;) {
        const early = lastRead + READ_INTERVAL_MS - performance.now();
        if (early > 0) await Bun.sleep(early);
        lastRead = performance.now();
        this.kick();
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          throw this.translate(error);
        }
        if (chunk.done) break;
        this.bodyBegins();
        yield decoder.decode(chunk.value, { stream: true });
      }
      const rest = decoder.decode();
      if (rest) yield rest;
    } finally {
      this.dispose();
      reader.releaseLock();
      if (this.controller.signal.aborted || !response.bodyUsed) response.body.cancel().catch(() => {});
    }
  }

  /** A non-OK answer: the status and an excerpt of the body, and the parsed JSON if it is JSON. */
  async failure(response: Response): Promise<{ status: number; excerpt: string; json: any }> {
    let text = "";
    try {
      text = await response.text();
    } catch {
      // The excerpt stays empty; the status still says what happened.
    }
    this.dispose();
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      // Not JSON: the excerpt is shown as text.
    }
    const excerpt = text.replace(/\s+/g, " ").trim().slice(0, 300);
    return { status: response.status, excerpt, json };
  }

  /** A reply's whole body as JSON (non-streamed requests and the info endpoints). */
  async json(response: Response): Promise<any> {
    let text = "";
    for await (const piece of this.text(response)) text += piece;
    try {
      return JSON.parse(text);
    } catch {
      throw new ModelError(`${this.url} answered with a body that is not valid JSON: ${text.slice(0, 200)}`);
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.stopWaitNotices();
    this.outer.removeEventListener("abort", this.onOuterAbort);
  }

  /** The silence allowed now: the first-byte wait until the body begins, the idle timeout after. */
  private get limitMs(): number {
    return this.firstByte && !this.bodyBegun ? this.firstByte.ms : this.idleMs;
  }

  /** Each idle period without a first byte, a notice that the reply is still awaited. */
  private sayWhileWaiting(): void {
    const wait = this.firstByte;
    if (!wait || this.noticeTimer !== undefined) return;
    const started = performance.now();
    this.noticeTimer = setInterval(() => {
      const waited = Math.round((performance.now() - started) / 1000);
      wait.notices.say(`no reply yet after ${waited} s: queued at the server? (waiting up to ${Math.round(wait.ms / 1000)} s, first_byte_timeout_seconds)`);
    }, this.idleMs);
  }

  private stopWaitNotices(): void {
    clearInterval(this.noticeTimer);
    this.firstByte?.notices.end();
  }

  /** The first byte of the body: no more waiting notices, and the idle timeout governs from here. */
  private bodyBegins(): void {
    if (this.bodyBegun) return;
    this.bodyBegun = true;
    this.stopWaitNotices();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Something arrived: the stall clock starts again. One timer for the whole exchange, which on
   * firing looks at when the last byte came and waits out the rest: resetting a timer for every
   * chunk cost a clearTimeout and a setTimeout per token at 2,000 tokens a second.
   */
  private kick(): void {
    this.lastActivity = performance.now();
    if (this.timer === undefined) this.watch(this.limitMs);
  }

  private watch(ms: number): void {
    this.timer = setTimeout(() => {
      const idle = performance.now() - this.lastActivity;
      if (idle < this.limitMs) return this.watch(this.limitMs - idle);
      this.stalled = true;
      this.controller.abort();
    }, ms);
  }

  /** Names what went wrong. A stop by the caller is passed on as it is, for the loop to name. */
  private translate(error: unknown): Error {
    this.dispose();
    if (this.outer.aborted) return error instanceof Error ? error : new Error(String(error));
    if (this.stalled && !this.bodyBegun && this.firstByte) {
      return new ModelError(`${this.url} did not begin its reply within ${Math.round(this.firstByte.ms / 1000)}s: the server is overloaded or stuck (first_byte_timeout_seconds)`);
    }
    if (this.stalled) {
      return new ModelError(`${this.url} sent nothing for ${Math.round(this.idleMs / 1000)}s: the server stalled (idle_timeout_seconds)`);
    }
    const tlsProblem = certificateProblem(this.url, error);
    if (tlsProblem) return new ModelError(tlsProblem);
    const code = (error as { code?: string }).code;
    if (code === "ECONNREFUSED" || code === "ConnectionRefused") {
      return new ModelError(`cannot reach ${this.url}: connection refused; is the server running (llama-server or ollama serve)?`);
    }
    if (code === "ENOTFOUND" || code === "EAI_AGAIN") return new ModelError(`cannot reach ${this.url}: the host name does not resolve; check --model or --base-url`);
    if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || /closed|reset|terminated/i.test(String((error as Error).message))) {
      return new ModelError(`${this.url} closed the connection in the middle of the reply`);
    }
    return new ModelError(`request to ${this.url} failed: ${(error as Error).message ?? String(error)}`);
  }
}

/**
 * What an exchange says while a reply has not begun, for the reply's reader to pass on: the
 * reader is blocked in a read then, so it races each next delta with these (withWaitNotices).
 */
export class WaitNotices {
  private said: string[] = [];
  private waiting: { promise: Promise<void>; wake: () => void } | null = null;
  /** true once the body began or the exchange ended: nothing more will be said. */
  ended = false;

  say(text: string): void {
    this.said.push(text);
    this.wakeReader();
  }

  end(): void {
    this.ended = true;
    this.wakeReader();
  }

  take(): string[] {
    return this.said.splice(0);
  }

  /** Resolves when something is said or the waiting ends. */
  next(): Promise<void> {
    if (this.said.length || this.ended) return Promise.resolve();
    if (!this.waiting) {
      const { promise, resolve } = Promise.withResolvers<void>();
      this.waiting = { promise, wake: resolve };
    }
    return this.waiting.promise;
  }

  private wakeReader(): void {
    this.waiting?.wake();
    this.waiting = null;
  }
}

/**
 * A reply's deltas with the waiting notices between them, as `notice` deltas (shown as model_notice
 * events). Once the waiting has ended the deltas pass straight through: no race per token.
 */
export async function* withWaitNotices(deltas: AsyncGenerator<ModelDelta>, waits: WaitNotices): AsyncGenerator<ModelDelta> {
  let next: Promise<IteratorResult<ModelDelta>> | null = null;
  let settled = true;
  try {
    while (!waits.ended) {
      if (settled) {
        settled = false;
        next = deltas.next().finally(() => (settled = true));
      }
      const result = await Promise.race([next!, waits.next().then(() => null)]);
      for (const text of waits.take()) yield { type: "notice", text };
      if (!result) continue;
      if (result.done) return;
      yield result.value;
    }
    if (!settled) {
      const result = await next!;
      if (result.done) return;
      yield result.value;
    }
    yield* deltas;
  } finally {
    // A read still pending ends with the exchange (its signal); returning now would wait for it.
    if (settled) await deltas.return(undefined);
  }
}

/** The exchange of a model's reply: its body may take first_byte_timeout_seconds to begin (said while it lasts), then idle_timeout_seconds of silence is a stall. */
export function replyExchange(url: string, options: ModelOptions, signal: AbortSignal, waits: WaitNotices, access?: ServerAccess): ServerExchange {
  return new ServerExchange(url, options.idle_timeout_seconds * 1000, signal, access, { ms: options.first_byte_timeout_seconds * 1000, notices: waits });
}

/** GET or POST a small JSON endpoint (health, props, show, tags) with a short timeout. */
export async function fetchJson(url: string, body: unknown | undefined, signal: AbortSignal, idleMs = 10_000, access: ServerAccess = NO_ACCESS): Promise<{ status: number; json: any; excerpt: string }> {
  const exchange = new ServerExchange(url, idleMs, signal, access);
  const response = await exchange.send(body === undefined ? { method: "GET" } : { method: "POST", body: JSON.stringify(body) });
  if (!response.ok) return exchange.failure(response);
  return { status: response.status, json: await exchange.json(response), excerpt: "" };
}
