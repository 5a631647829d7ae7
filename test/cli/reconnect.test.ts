import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { glassbox } from "../helpers/cli.ts";
import { llamaCppServer, llamaCppTextScene, llamaCppToolCallScene, type Scene } from "../helpers/fake-server.ts";
import { expectWellFormedEvents } from "../helpers/invariants.ts";
import { makeWorkspace } from "../helpers/workspace.ts";

/** llama-server's real answer while it loads its model (shared/notes/llama-server.md). */
const LOADING: Scene = { status: 503, headers: { "Content-Type": "application/json; charset=utf-8" }, pieces: ['{"error":{"message":"Loading model","type":"unavailable_error","code":503}}'] };

/** A run whose first reply reads README.md and whose second request meets a server loading its model twice. */
function loadingMidRun() {
  return llamaCppServer((n) => [llamaCppToolCallScene("read_file", '{"path":"README.md"}'), LOADING, LOADING, llamaCppTextScene("It is a version helper.")][n]!);
}

describe("a server that cannot take a request during a run", () => {
  test("is reconnected to: model_retry events with the attempt and the reason, and the run completes", async () => {
    const ws = makeWorkspace();
    const server = loadingMidRun();
    const result = await glassbox(["run", "--json", "--model", `llamacpp:${server.url}`, "--workspace", ws.root, "what is it?"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expectWellFormedEvents(result.events);
    const retries = result.events.filter((event) => event.kind === "model_retry");
    const reason = `${server.url}/v1/chat/completions answered HTTP 503: Loading model`;
    expect(retries).toEqual([
      { kind: "model_retry", step: 2, attempt: 1, reason },
      { kind: "model_retry", step: 2, attempt: 2, reason },
    ]);
    expect(result.events.at(-1)).toMatchObject({ kind: "stop", status: "completed", steps: 2, answer: "It is a version helper." });
  }, 30_000);

  test("the printed run says it is reconnecting; reconnect_seconds 0 stops the run instead", async () => {
    const ws = makeWorkspace();
    const printed = await glassbox(["run", "--model", `llamacpp:${loadingMidRun().url}`, "--workspace", ws.root, "what is it?"]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/^\[2\] reconnecting \(attempt 1\): http:\S+ answered HTTP 503: Loading model$/m);

    const config = join(ws.outside, "no-reconnect.json");
    await Bun.write(config, JSON.stringify({ model_options: { reconnect_seconds: 0 } }));
    const off = await glassbox(["run", "--json", "--config", config, "--model", `llamacpp:${loadingMidRun().url}`, "--workspace", ws.root, "what is it?"]);
    expect(off.code).toBe(1);
    expect(off.events.filter((event) => event.kind === "model_retry")).toEqual([]);
    expect(off.events.at(-1)).toMatchObject({ kind: "stop", status: "model_error", reason: expect.stringContaining("HTTP 503: Loading model") });
  }, 30_000);
});
