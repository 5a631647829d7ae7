import { ModelError, type ModelDelta } from "../protocol/model.ts";

/**
 * A request the server never took: the connection was refused or closed before it answered, or it
 * answered that it is still loading its model. Sending it again cannot do the work twice.
 */
export class ServerUnavailable extends ModelError {}

/** How ServerExchange names a refused connection and one closed before any answer (http.ts translate). */
const CONNECTION_LOST = /connection refused|closed the connection/;

/** The clock the waits are measured on, and the wait itself: tests pass their own so no test waits 30 s. */
export interface ReconnectClock {
  now(): number;
  /** Resolves after `ms`, or as soon as `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const SYSTEM_CLOCK: ReconnectClock = { now: () => performance.now(), sleep: sleepUnlessAborted };

/** The waits between attempts: a quarter second, doubled after each, at most 4 s (a restarted server's model loads in seconds). */
export const BACKOFF_MS = { first: 250, max: 4_000 };

/**
 * One model client's reconnecting, one layer above the HTTP exchange: each attempt is the whole
 * exchange (logged on its own in the wire log), and only a ServerUnavailable before the reply's
 * first delta is tried again, with backoff, for up to `seconds`. A reply that began is never
 * sent twice, whatever breaks it later.
 */
export class Reconnect {
  /**
   * The server has answered this client before. A refused connection after that is a restart
   * worth waiting for; before it, there is no server at all, and the person is told at once.
   */
  private answered = false;

  constructor(
    private readonly seconds: number,
    private readonly clock: ReconnectClock = SYSTEM_CLOCK,
  ) {}

  /** A request's response; a connection lost before it, to a server that answered before, is ServerUnavailable. */
  async response(sending: Promise<Response>): Promise<Response> {
    try {
      const response = await sending;
      this.answered = true;
      return response;
    } catch (error) {
      throw this.answered && error instanceof ModelError && CONNECTION_LOST.test(error.message) ? new ServerUnavailable(error.message) : error;
    }
  }

  /** The deltas of the first attempt that gets a reply, with a `retry` delta before each wait. */
  async *reply(attempt: () => AsyncGenerator<ModelDelta>, signal: AbortSignal): AsyncGenerator<ModelDelta> {
    const deadline = this.clock.now() + this.seconds * 1000;
    for (let retry = 1; ; retry++) {
      let began = false;
      try {
        for await (const delta of attempt()) {
          // A notice says the exchange is waiting; any other delta is the reply itself.
          began ||= delta.type !== "notice";
          yield delta;
        }
        return;
      } catch (error) {
        const left = deadline - this.clock.now();
        if (!(error instanceof ServerUnavailable) || began || signal.aborted) throw error;
        if (left <= 0) throw retry > 1 ? new ModelError(`${error.message} (still so after reconnecting for ${this.seconds}s, model_options.reconnect_seconds)`) : error;
        yield { type: "retry", attempt: retry, reason: error.message };
        await this.clock.sleep(Math.min(backoff(retry), left), signal);
        if (signal.aborted) throw error;
      }
    }
  }
}

/** `503 Loading model`: llama-server is up but still loading; the request was not taken. null for any other failure. */
export function loadingModel(url: string, failure: { status: number; json: any }): ServerUnavailable | null {
  const error = failure.json?.error;
  if (failure.status !== 503 || !(error?.type === "unavailable_error" || /loading model/i.test(String(error?.message ?? "")))) return null;
  return new ServerUnavailable(`${url} answered HTTP 503: ${error?.message ?? "unavailable"}`);
}

function backoff(retry: number): number {
  return Math.min(BACKOFF_MS.first * 2 ** (retry - 1), BACKOFF_MS.max);
}

function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
