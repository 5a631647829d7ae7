import { Buffer } from "node:buffer";

/**
 * An HTTP/1.1 exchange with a model server on this machine, over a socket of glassbox's own that
 * is read only while a read waits for it.
 *
 * Why not fetch: Bun's fetch reads the socket on an HTTP thread of its own and hands every packet
 * over to the JavaScript thread as it comes, however seldom the body is read. A local server
 * streams a packet per token, so at 2,000 tokens a second both threads woke about 900 times a
 * second: reading the bare stream cost 5.5–7% of a core. This socket is paused between reads (the
 * kernel holds what comes meanwhile), so it wakes once per read, and the same stream cost 3–4%
 * with its chunked framing taken apart here (docs/decisions.md). Every other address (another machine, https) still goes through fetch.
 *
 * What it does is what the model servers need and no more: one request per connection
 * (`Connection: close`), a body framed by `Transfer-Encoding: chunked`, by `Content-Length`, or by
 * the connection's end. The answer is a real `Response`; a read of its body gets everything that
 * arrived since the last one as one piece, as fetch's does.
 */

export function isLoopbackHttp(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" && LOOPBACK_HOSTS.has(parsed.hostname);
  } catch {
    return false;
  }
}

/** Host names that are this machine, as model servers are reached on it. */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

export interface LoopbackRequest {
  method: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
  signal: AbortSignal;
}

/** The error a failed exchange rejects with: `code` as fetch names it, so callers translate both alike. */
function failure(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

export async function loopbackFetch(url: string, init: LoopbackRequest): Promise<Response> {
  const target = new URL(url);
  const { signal } = init;
  signal.throwIfAborted();
  const body = init.body ?? "";
  const head =
    `${init.method} ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nConnection: close\r\nAccept: */*\r\n` +
    Object.entries(init.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("") +
    (init.method === "POST" ? `Content-Length: ${Buffer.byteLength(body)}\r\n` : "") +
    "\r\n";

  const reading = new ResponseReader();
  // A long conversation is a large request: the socket may take it in several writes.
  let unsent = Buffer.from(head + body);
  const send = (socket: { write(data: Uint8Array): number }) => {
    while (unsent.length) {
      const written = socket.write(unsent);
      if (written <= 0) return; // the rest when the socket drains
      unsent = unsent.subarray(written);
    }
  };
  const socket = await Bun.connect({
    hostname: target.hostname === "[::1]" ? "::1" : target.hostname,
    port: Number(target.port || 80),
    socket: {
      data: (_socket, data) => reading.receive(data),
      drain: (socket) => send(socket),
      end: () => reading.closed(),
      close: () => reading.closed(),
      error: (_socket, error) => reading.fail(failure(error.message, (error as { code?: string }).code ?? "ECONNRESET")),
    },
  });
  reading.socket = socket;
  const abort = () => reading.fail(signal.reason);
  signal.addEventListener("abort", abort, { once: true });
  reading.onDone = () => signal.removeEventListener("abort", abort);
  if (signal.aborted) abort();
  else send(socket);
  return reading.response;
}

/** A chunked body's framing: where the decoder is. */
type ChunkState = { at: "size" } | { at: "data"; left: number } | { at: "data-end" } | { at: "trailer" };

/** What the reader needs of the socket. */
interface ReadableSocket {
  pause(): void;
  resume(): void;
  end(): void;
  terminate(): void;
}

/**
 * Turns what the socket delivers into a Response: the head as soon as it is complete, then the
 * body, a read at a time. Once the head is in, the socket is read only while a read of the body
 * waits, and paused again by the first packet that answers it.
 */
class ResponseReader {
  readonly response: Promise<Response>;
  socket: ReadableSocket | null = null;
  /** The exchange is over, however it ended. */
  onDone: () => void = () => {};
  private resolveHead!: (response: Response) => void;
  private rejectHead!: (error: unknown) => void;
  private headDone = false;
  private paused = false;
  /**
   * What the socket delivered and no read has taken yet, raw (framing included), in one buffer
   * that grows: a packet costs a copy into it, and the framing is taken apart once a read.
   */
  private raw: Buffer = Buffer.allocUnsafe(16 * 1024);
  private rawLength = 0;
  private framing: "chunked" | "length" | "close" = "close";
  private chunk: ChunkState = { at: "size" };
  private lengthLeft = 0;
  /** Body bytes taken apart and not yet read (views into `raw` until they are copied out). */
  private queued: Buffer[] = [];
  private ready: Buffer | null = null;
  /** A read waiting for the body. */
  private waiting: (() => void) | null = null;
  private ended = false;
  private error: unknown = null;

  constructor() {
    this.response = new Promise((resolve, reject) => {
      this.resolveHead = resolve;
      this.rejectHead = reject;
    });
  }

  receive(data: Uint8Array): void {
    if (this.ended || this.error) return;
    if (this.rawLength + data.length > this.raw.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.raw.length * 2, this.rawLength + data.length));
      this.raw.copy(grown, 0, 0, this.rawLength);
      this.raw = grown;
    }
    this.raw.set(data, this.rawLength);
    this.rawLength += data.length;
    // The head at once (the caller waits for the status); the body when a read waits for it.
    if (!this.headDone || this.waiting) this.take();
    if (this.headDone && !this.waiting && !this.ended && !this.error) this.pause();
  }

  closed(): void {
    if (this.ended || this.error) return;
    this.take(); // what came last may end the body
    if (this.ended || this.error) return;
    // A body that runs to the connection's end is complete; a chunked or counted one is cut.
    if (this.headDone && this.framing === "close") this.finish();
    else this.fail(failure(this.headDone ? "the connection closed in the middle of the body" : "the connection closed before the response", "ECONNRESET"));
  }

  /** Failed, stopped by the caller, or the body cancelled: the connection goes, so the server stops generating. */
  fail(error: unknown): void {
    if (this.ended || this.error) return;
    this.error = error;
    this.rejectHead(error);
    this.onDone();
    this.socket?.terminate();
    this.wake();
  }

  private finish(): void {
    this.ended = true;
    this.onDone();
    this.socket?.end(); // a server that keeps the connection after all holds nothing of ours
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }

  private pause(): void {
    if (this.paused || !this.socket) return;
    this.paused = true;
    this.socket.pause();
  }

  private resume(): void {
    if (!this.paused || !this.socket) return;
    this.paused = false;
    this.socket.resume();
  }

  /** Takes apart what arrived: the head if it is complete, then as much of the body as there is. */
  private take(): void {
    let at = 0;
    const bytes = this.raw.subarray(0, this.rawLength);
    if (!this.headDone) {
      const end = bytes.indexOf("\r\n\r\n");
      if (end < 0) return;
      this.startBody(bytes.subarray(0, end).toString("latin1"));
      at = end + 4;
    }
    if (!this.error) at = this.body(bytes, at);
    // Copied out before the unread rest (a framing line cut between two packets) moves to the front.
    if (this.queued.length) {
      this.ready = Buffer.concat(this.ready ? [this.ready, ...this.queued] : this.queued);
      this.queued = [];
    }
    this.raw.copyWithin(0, at, this.rawLength);
    this.rawLength -= at;
    if (this.ready || this.ended || this.error) this.wake();
  }

  private startBody(head: string): void {
    const [statusLine = "", ...lines] = head.split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    if (!status) return this.fail(failure(`the server answered with something that is not HTTP: ${statusLine.slice(0, 80)}`, "EBADRESPONSE"));
    const headers = new Headers();
    for (const line of lines) {
      const colon = line.indexOf(":");
      if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    this.headDone = true;
    if (/\bchunked\b/i.test(headers.get("transfer-encoding") ?? "")) this.framing = "chunked";
    else if (headers.has("content-length")) {
      this.framing = "length";
      this.lengthLeft = Number(headers.get("content-length"));
    }
    const stream = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => this.pull(controller),
        cancel: () => this.fail(new DOMException("the body was cancelled", "AbortError")),
      },
      { highWaterMark: 0 },
    );
    // A status without a body (204, 304) may not be given one.
    const empty = status === 204 || status === 304;
    if (empty) this.finish();
    this.resolveHead(new Response(empty ? null : stream, { status, headers }));
    if (this.framing === "length" && this.lengthLeft === 0) this.finish();
  }

  /** Everything that arrived since the last read, as one piece; or reads the socket until something does. */
  private async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    this.take();
    while (!this.ready && !this.ended && !this.error) {
      const arrived = new Promise<void>((resolve) => (this.waiting = resolve));
      this.resume();
      await arrived;
    }
    if (this.ready) {
      controller.enqueue(this.ready);
      this.ready = null;
    } else if (this.error) controller.error(this.error);
    else controller.close();
  }

  /** Takes the body's bytes from `bytes` at `at` on; returns where the unread rest starts. */
  private body(bytes: Buffer, at: number): number {
    if (this.framing === "close") {
      if (at < bytes.length) this.queued.push(bytes.subarray(at));
      return bytes.length;
    }
    if (this.framing === "length") {
      const take = bytes.subarray(at, at + this.lengthLeft);
      if (take.length) this.queued.push(take);
      this.lengthLeft -= take.length;
      if (this.lengthLeft === 0) this.finish();
      return bytes.length;
    }
    return this.dechunk(bytes, at);
  }

  private dechunk(bytes: Buffer, at: number): number {
    while (at < bytes.length && !this.ended && !this.error) {
      const state = this.chunk;
      if (state.at === "data") {
        const take = bytes.subarray(at, at + state.left);
        this.queued.push(take);
        at += take.length;
        this.chunk = state.left === take.length ? { at: "data-end" } : { at: "data", left: state.left - take.length };
        continue;
      }
      const lineEnd = bytes.indexOf("\r\n", at);
      if (lineEnd < 0) return at; // a framing line cut between two packets: read with the next
      const line = bytes.subarray(at, lineEnd).toString("latin1");
      at = lineEnd + 2;
      if (state.at === "data-end") {
        if (line !== "") this.fail(failure("the server's chunked body is malformed", "EBADRESPONSE"));
        else this.chunk = { at: "size" };
      } else if (state.at === "size") {
        const size = parseInt(line.split(";")[0]!.trim(), 16);
        if (!Number.isFinite(size) || size < 0) this.fail(failure("the server's chunked body is malformed", "EBADRESPONSE"));
        else this.chunk = size === 0 ? { at: "trailer" } : { at: "data", left: size };
      } else if (line === "") this.finish(); // the trailer's end: the body is complete
    }
    return bytes.length;
  }
}
