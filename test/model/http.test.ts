/**
 * The wait for a reply's first byte (first_byte_timeout_seconds) against silence after it
 * (idle_timeout_seconds): a server on another machine that queues the request under load is shown
 * as waiting, in notices, and is not cut as a stall; once the body has begun, the idle timeout
 * governs again.
 */
import { describe, expect, test } from "bun:test";
import { LlamaCppModel } from "../../src/model/llamacpp.ts";
import { OllamaModel } from "../../src/model/ollama.ts";
import { ModelOptionsSchema } from "../../src/model/options.ts";
import type { ModelDelta, ModelRequest } from "../../src/protocol/model.ts";
import { assembled, collect } from "../helpers/model.ts";
import { llamaCppTextScene, ollamaExample, startFakeServer, type Scene } from "../helpers/fake-server.ts";

const options = (idle: number, firstByte: number) => ModelOptionsSchema.parse({ idle_timeout_seconds: idle, first_byte_timeout_seconds: firstByte });

const request = (): ModelRequest => ({ messages: [{ role: "user", content: "Say hello." }], tools: [], signal: new AbortController().signal });

/** Every request answered with `scene`, its body held back `delayMs` after the headers (a request queued behind a full batch). */
function queueing(scene: Scene, delayMs: number) {
  return startFakeServer(() => ({ ...scene, pieces: [delayMs, ...scene.pieces] }));
}

/** A server that answers nothing at all, not even headers, for `delayMs`: the wait some proxies make. */
function silentHeaders(scene: Scene, delayMs: number) {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch() {
      await Bun.sleep(delayMs);
      return new Response(scene.pieces.filter((piece) => typeof piece === "string").join(""), { headers: scene.headers });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

const notices = (deltas: ModelDelta[]) => deltas.flatMap((delta) => (delta.type === "notice" ? [delta.text] : []));

describe("a reply that takes long to begin", () => {
  test("a body that begins after several idle periods is a reply, with a waiting notice each idle period", async () => {
    const server = queueing(llamaCppTextScene("hello there"), 1300);
    const { deltas, error } = await collect(new LlamaCppModel("llamacpp", server.url, options(0.4, 10)), request());
    expect(error).toBeNull();
    expect(assembled(deltas).content).toBe("hello there");
    const said = notices(deltas);
    expect(said.length).toBeGreaterThanOrEqual(2);
    expect(said[0]).toMatch(/^no reply yet after \d+ s: queued at the server\? \(waiting up to 10 s, first_byte_timeout_seconds\)$/);
    // The notices come before the reply's text, while it is awaited; none after.
    const firstText = deltas.findIndex((delta) => delta.type === "text");
    expect(deltas.findLastIndex((delta) => delta.type === "notice")).toBeLessThan(firstText);
  });

  test("headers that come late are waited for the same way", async () => {
    const server = silentHeaders(llamaCppTextScene("late but here"), 1000);
    try {
      const { deltas, error } = await collect(new LlamaCppModel("llamacpp", server.url, options(0.4, 10)), request());
      expect(error).toBeNull();
      expect(assembled(deltas).content).toBe("late but here");
      expect(notices(deltas).length).toBeGreaterThanOrEqual(1);
    } finally {
      server.stop();
    }
  });

  test("Ollama's replies wait for their first byte the same way", async () => {
    const server = queueing(ollamaExample("01-text-stream"), 1000);
    const model = new OllamaModel("ollama:qwen2.5:1.5b", "qwen2.5:1.5b", server.url, options(0.4, 10));
    const { deltas, error } = await collect(model, request());
    expect(error).toBeNull();
    expect(notices(deltas).length).toBeGreaterThanOrEqual(1);
  });

  test("no first byte within first_byte_timeout_seconds: an error naming that option, not before it", async () => {
    const server = queueing(llamaCppTextScene("too late"), 60_000);
    const started = performance.now();
    const { deltas, error } = await collect(new LlamaCppModel("llamacpp", server.url, options(0.3, 1.2)), request());
    const seconds = (performance.now() - started) / 1000;
    expect(seconds).toBeGreaterThanOrEqual(1.1);
    expect(seconds).toBeLessThan(4);
    expect(error!.message).toBe(`${server.url}/v1/chat/completions did not begin its reply within 1s: the server is overloaded or stuck (first_byte_timeout_seconds)`);
    expect(notices(deltas).length).toBeGreaterThanOrEqual(2);
  });

  test("after the first byte, silence longer than idle_timeout_seconds is a stall at once, however long the first-byte wait", async () => {
    const scene = llamaCppTextScene("one two three");
    const server = startFakeServer(() => ({ ...scene, pieces: scene.pieces.slice(0, 2), after: "hang" }));
    const started = performance.now();
    const { deltas, error } = await collect(new LlamaCppModel("llamacpp", server.url, options(0.3, 30)), request());
    expect(performance.now() - started).toBeLessThan(3000);
    expect(error!.message).toContain("the server stalled (idle_timeout_seconds)");
    expect(notices(deltas)).toEqual([]);
  });

  test("a reply that begins at once says nothing of waiting", async () => {
    const server = queueing(llamaCppTextScene("quick"), 0);
    const { deltas, error } = await collect(new LlamaCppModel("llamacpp", server.url, options(0.3, 30)), request());
    expect(error).toBeNull();
    expect(notices(deltas)).toEqual([]);
  });

  test("the default waits ten minutes for a first byte and one minute of silence after it", () => {
    const defaults = ModelOptionsSchema.parse({});
    expect(defaults.first_byte_timeout_seconds).toBe(600);
    expect(defaults.idle_timeout_seconds).toBe(60);
  });
});
