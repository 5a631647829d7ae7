import { describe, expect, test } from "bun:test";
import { findLlamaServer, testModel } from "../../scripts/llama-server.ts";
import { LlamaCppModel } from "../../src/model/llamacpp.ts";
import { ModelOptionsSchema } from "../../src/model/options.ts";
import type { ModelDelta } from "../../src/protocol/model.ts";
import { LLAMA_START_TIMEOUT, withoutLlama } from "../helpers/llama.ts";
import { drain } from "../helpers/model.ts";

const request = () => ({ messages: [{ role: "user" as const, content: "Say hello." }], tools: [], signal: new AbortController().signal });

function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

async function healthy(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const health = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) }).catch(() => null);
    if (health?.ok) return;
    await Bun.sleep(100);
  }
  throw new Error(`llama-server at ${url} was not ready within 60 s`);
}


describe.skipIf(await withoutLlama())("a real llama-server restarted between two requests of a run", () => {
  test("stopped, then started again on its port: the next request is refused, then told the model is loading, then answered", async () => {
    const found = await findLlamaServer();
    if ("missing" in found) throw new Error(found.missing);
    const model = await testModel("prose");
    const port = freePort();
    const url = `http://127.0.0.1:${port}`;
    const start = () =>
      Bun.spawn([...found.command, "-m", model, "--jinja", "-c", "2048", "-np", "1", "-t", "2", "--host", "127.0.0.1", "--port", String(port)], {
        env: { ...process.env, ...found.env },
        stdin: "ignore",
        stdout: "ignore",
        stderr: "ignore",
      });
    let server = start();
    try {
      await healthy(url);
      const client = new LlamaCppModel("llamacpp", url, ModelOptionsSchema.parse({ max_tokens: 8, reconnect_seconds: 60 }));
      expect((await drain(client.reply(request()))).error).toBeNull();

      server.kill("SIGTERM");
      await server.exited;
      // Not waited for: the request finds no server, then one loading its model.
      server = start();
      const { deltas, error } = await drain(client.reply(request()));
      expect(error).toBeNull();
      const retries = deltas.filter((delta) => delta.type === "retry");
      expect(retries.length).toBeGreaterThanOrEqual(1);
      expect(retries.map((retry) => retry.attempt)).toEqual(retries.map((_, index) => index + 1));
      for (const retry of retries) expect(retry.reason).toMatch(/connection refused|closed the connection|HTTP 503: Loading model/);
      expect(deltas.some((delta) => delta.type === "done")).toBe(true);
    } finally {
      server.kill("SIGKILL");
    }
  }, LLAMA_START_TIMEOUT);
});
