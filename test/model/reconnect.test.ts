import { describe, expect, test } from "bun:test";
import { BACKOFF_MS, Reconnect, ServerUnavailable, loadingModel, type ReconnectClock } from "../../src/model/reconnect.ts";
import { LlamaCppModel } from "../../src/model/llamacpp.ts";
import { OllamaModel } from "../../src/model/ollama.ts";
import { ModelOptionsSchema } from "../../src/model/options.ts";
import { ModelError, type ModelClient, type ModelDelta } from "../../src/protocol/model.ts";
import { ReplyBuilder } from "../../src/model/reply.ts";
import { llamaCppTextScene, ollamaExample, startFakeServer, type FakeServer, type Scene } from "../helpers/fake-server.ts";
import { drain } from "../helpers/model.ts";

/** llama-server's real answer while it loads its model (shared/notes/llama-server.md). */
const LOADING: Scene = {
  status: 503,
  headers: { "Content-Type": "application/json; charset=utf-8", Server: "llama.cpp" },
  pieces: ['{"error":{"message":"Loading model","type":"unavailable_error","code":503}}'],
};

/** A clock that moves only when waited on: the waits are recorded, no test waits them out. */
class WaitedClock implements ReconnectClock {
  time = 0;
  readonly waits: number[] = [];
  now(): number {
    return this.time;
  }
  async sleep(ms: number): Promise<void> {
    this.waits.push(ms);
    this.time += ms;
  }
}

const never = new AbortController().signal;
const unavailable = () => new ServerUnavailable("cannot reach http://127.0.0.1:1: connection refused; is the server running (llama-server or ollama serve)?");


/** An attempt that fails `failures` times with `failure()`, then replies "hello". */
function failingThen(failures: number, failure: () => Error = unavailable) {
  let made = 0;
  const attempt = async function* (): AsyncGenerator<ModelDelta> {
    made++;
    if (made <= failures) throw failure();
    yield { type: "text", text: "hello" };
    yield { type: "done", finish_reason: "stop" };
  };
  return { attempt, made: () => made };
}

const retries = (deltas: ModelDelta[]) => deltas.filter((delta) => delta.type === "retry");
const text = (deltas: ModelDelta[]) => deltas.flatMap((delta) => (delta.type === "text" ? [delta.text] : [])).join("");

describe("the reconnecting layer", () => {
  test("a server that cannot take the request is tried again, with a retry delta before each wait, and the waits double", async () => {
    const clock = new WaitedClock();
    const { attempt, made } = failingThen(3);
    const { deltas, error } = await drain(new Reconnect(30, clock).reply(attempt, never));
    expect(error).toBeNull();
    expect(made()).toBe(4);
    expect(retries(deltas)).toEqual([1, 2, 3].map((attempt) => ({ type: "retry", attempt, reason: unavailable().message })));
    expect(clock.waits).toEqual([BACKOFF_MS.first, BACKOFF_MS.first * 2, BACKOFF_MS.first * 4]);
    expect(text(deltas)).toBe("hello");
  });

  test("bounded by reconnect_seconds: 30 s of waits at most, then the error, naming the option", async () => {
    const clock = new WaitedClock();
    // Past 100 attempts something else fails: an unbounded loop on this clock would never yield to a timeout.
    const { attempt, made } = failingThen(Number.POSITIVE_INFINITY, () => (made() > 100 ? new Error("tried more than 100 times") : unavailable()));
    const { deltas, error } = await drain(new Reconnect(30, clock).reply(attempt, never));
    expect(error).toBeInstanceOf(ModelError);
    expect(error!.message).toBe(`${unavailable().message} (still so after reconnecting for 30s, model_options.reconnect_seconds)`);
    expect(clock.time).toBe(30_000);
    expect(Math.max(...clock.waits)).toBe(BACKOFF_MS.max);
    expect(made()).toBe(clock.waits.length + 1);
    expect(retries(deltas)).toHaveLength(clock.waits.length);
  });

  test("reconnect_seconds 0: the first failure as it was, nothing tried again", async () => {
    const clock = new WaitedClock();
    const { attempt, made } = failingThen(1);
    const { deltas, error } = await drain(new Reconnect(0, clock).reply(attempt, never));
    expect(error!.message).toBe(unavailable().message);
    expect(made()).toBe(1);
    expect(deltas).toEqual([]);
  });

  test("never again once the reply began: a failure after its first delta ends it", async () => {
    let made = 0;
    const attempt = async function* (): AsyncGenerator<ModelDelta> {
      made++;
      yield { type: "text", text: "half" };
      throw unavailable();
    };
    const { deltas, error } = await drain(new Reconnect(30, new WaitedClock()).reply(attempt, never));
    expect(error).toBeInstanceOf(ServerUnavailable);
    expect(made).toBe(1);
    expect(retries(deltas)).toEqual([]);
  });

  test("a waiting notice is not the reply: a failure after it is still tried again", async () => {
    let made = 0;
    const attempt = async function* (): AsyncGenerator<ModelDelta> {
      made++;
      if (made === 1) {
        yield { type: "notice", text: "no reply yet after 60 s" };
        throw unavailable();
      }
      yield { type: "text", text: "hello" };
    };
    const { deltas } = await drain(new Reconnect(30, new WaitedClock()).reply(attempt, never));
    expect(made).toBe(2);
    expect(text(deltas)).toBe("hello");
  });

  test("any other failure is not tried again", async () => {
    const { attempt, made } = failingThen(1, () => new ModelError("http://x answered HTTP 500: boom"));
    const { error } = await drain(new Reconnect(30, new WaitedClock()).reply(attempt, never));
    expect(error!.message).toBe("http://x answered HTTP 500: boom");
    expect(made()).toBe(1);
  });

  test("a stop while waiting ends the wait at once, and nothing more is sent", async () => {
    const stop = new AbortController();
    const { attempt, made } = failingThen(Number.POSITIVE_INFINITY);
    let stoppedAt = 0;
    const deltas = (async function* () {
      for await (const delta of new Reconnect(30).reply(attempt, stop.signal)) {
        // Stopped during the first wait (a quarter second).
        if (delta.type === "retry") setTimeout(() => ((stoppedAt = performance.now()), stop.abort()), 20);
        yield delta;
      }
    })();
    const { error } = await drain(deltas);
    expect(performance.now() - stoppedAt).toBeLessThan(BACKOFF_MS.first - 50);
    expect(error).toBeInstanceOf(ServerUnavailable);
    expect(made()).toBe(1);
  });

  test("a refused connection is tried again only once the server has answered this client", async () => {
    const reconnect = new Reconnect(30);
    const refused = () => Promise.reject(new ModelError("cannot reach http://127.0.0.1:1: connection refused; is the server running (llama-server or ollama serve)?"));
    const before = await reconnect.response(refused()).catch((error) => error);
    expect(before).toBeInstanceOf(ModelError);
    expect(before).not.toBeInstanceOf(ServerUnavailable);
    await reconnect.response(Promise.resolve(new Response("ok")));
    expect(await reconnect.response(refused()).catch((error) => error)).toBeInstanceOf(ServerUnavailable);
    const closed = await reconnect.response(Promise.reject(new ModelError("http://x closed the connection in the middle of the reply"))).catch((error) => error);
    expect(closed).toBeInstanceOf(ServerUnavailable);
    const stalled = await reconnect.response(Promise.reject(new ModelError("http://x sent nothing for 60s: the server stalled (idle_timeout_seconds)"))).catch((error) => error);
    expect(stalled).not.toBeInstanceOf(ServerUnavailable);
  });

  test("503 is unavailable only while the model loads", () => {
    expect(loadingModel("http://x", { status: 503, json: JSON.parse(LOADING.pieces[0] as string) })?.message).toBe("http://x answered HTTP 503: Loading model");
    expect(loadingModel("http://x", { status: 503, json: { error: { message: "Loading model" } } })).toBeInstanceOf(ServerUnavailable);
    expect(loadingModel("http://x", { status: 503, json: { error: { message: "slots busy", type: "server_error" } } })).toBeNull();
    expect(loadingModel("http://x", { status: 500, json: JSON.parse(LOADING.pieces[0] as string) })).toBeNull();
  });
});

const options = (reconnect_seconds = 5) => ModelOptionsSchema.parse({ idle_timeout_seconds: 2, reconnect_seconds });
const request = () => ({ messages: [{ role: "user" as const, content: "hi" }], tools: [], signal: new AbortController().signal });
const chats = (server: FakeServer) => server.requests.filter((seen) => seen.path === "/v1/chat/completions" || seen.path === "/api/chat");

/** A fake server whose chat requests get `scenes` in turn (the last one repeated). */
function serving(scenes: Scene[], port = 0): FakeServer {
  let n = 0;
  return startFakeServer(() => scenes[Math.min(n++, scenes.length - 1)]!, port);
}

describe("llama.cpp and Ollama reconnect to a real socket", () => {
  test("llama-server's `503 Loading model` twice, then the reply: two retries, three requests", async () => {
    const server = serving([LOADING, LOADING, llamaCppTextScene("ready now")]);
    const { deltas, error } = await drain(new LlamaCppModel("llamacpp", server.url, options()).reply(request()));
    expect(error).toBeNull();
    expect(retries(deltas)).toEqual([
      { type: "retry", attempt: 1, reason: `${server.url}/v1/chat/completions answered HTTP 503: Loading model` },
      { type: "retry", attempt: 2, reason: `${server.url}/v1/chat/completions answered HTTP 503: Loading model` },
    ]);
    expect(text(deltas)).toBe("ready now");
    expect(chats(server)).toHaveLength(3);
    // The same request each time.
    expect(new Set(chats(server).map((seen) => seen.raw)).size).toBe(1);
  });

  test("a server stopped after answering and started again on its port: the next request waits for it", async () => {
    const first = serving([llamaCppTextScene("one")]);
    const model = new LlamaCppModel("llamacpp", first.url, options());
    expect(text((await drain(model.reply(request()))).deltas)).toBe("one");
    const port = Number(new URL(first.url).port);
    first.stop();
    let again: FakeServer | null = null;
    setTimeout(() => (again = serving([llamaCppTextScene("two")], port)), 600);
    const { deltas, error } = await drain(model.reply(request()));
    expect(error).toBeNull();
    expect(text(deltas)).toBe("two");
    expect(retries(deltas).length).toBeGreaterThanOrEqual(1);
    expect(retries(deltas)[0]).toMatchObject({ attempt: 1, reason: expect.stringContaining("connection refused") });
    expect(chats(again!)).toHaveLength(1);
  });

  test("a server that never answered is not waited for: connection refused at once", async () => {
    const server = serving([llamaCppTextScene("x")]);
    server.stop();
    const started = performance.now();
    const { deltas, error } = await drain(new LlamaCppModel("llamacpp", server.url, options()).reply(request()));
    expect(error!.message).toContain("connection refused");
    expect(retries(deltas)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(BACKOFF_MS.first);
  });

  test("a connection closed before any answer, after the server had answered: tried again", async () => {
    const server = serving([llamaCppTextScene("one"), { ...LOADING, unanswered: true }, llamaCppTextScene("two")]);
    const model = new LlamaCppModel("llamacpp", server.url, options());
    await drain(model.reply(request()));
    const { deltas, error } = await drain(model.reply(request()));
    expect(error).toBeNull();
    expect(retries(deltas)).toEqual([{ type: "retry", attempt: 1, reason: `${server.url}/v1/chat/completions closed the connection in the middle of the reply` }]);
    expect(text(deltas)).toBe("two");
  });

  test("a reply reset in the middle of its body is never sent again", async () => {
    const whole = llamaCppTextScene("one two three four");
    const server = serving([llamaCppTextScene("one"), { ...whole, pieces: whole.pieces.slice(0, 3), after: "cut" }, llamaCppTextScene("again")]);
    const model = new LlamaCppModel("llamacpp", server.url, options());
    await drain(model.reply(request()));
    const { deltas, error } = await drain(model.reply(request()));
    expect(error!.message).toContain("closed the connection");
    expect(retries(deltas)).toEqual([]);
    expect(chats(server)).toHaveLength(2);
  });

  test("Ollama restarted on its port: the request waits for it", async () => {
    const reply = ollamaExample("01-text-stream");
    const first = serving([reply]);
    const model: ModelClient = new OllamaModel("ollama:m", "m", first.url, options());
    expect((await drain(model.reply(request()))).error).toBeNull();
    const port = Number(new URL(first.url).port);
    first.stop();
    setTimeout(() => serving([reply], port), 400);
    const { deltas, error } = await drain(model.reply(request()));
    expect(error).toBeNull();
    expect(retries(deltas).length).toBeGreaterThanOrEqual(1);
    const builder = new ReplyBuilder();
    for (const delta of deltas) builder.add(delta);
    expect(builder.result(1).content.length).toBeGreaterThan(0);
  });
});
