/**
 * The lifetime of a llama-server glassbox starts (src/model/llama-server-process.ts) and what a
 * run is told when it dies (src/model/gguf-model.ts), against the suite's real llama-server.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { llamaServerExecutable, testModel } from "../../scripts/llama-server.ts";
import { GgufModel } from "../../src/model/gguf-model.ts";
import { LlamaServerProcess, ServerLog, type ServerLaunch } from "../../src/model/llama-server-process.ts";
import { ModelOptionsSchema } from "../../src/model/options.ts";
import { ModelError } from "../../src/protocol/model.ts";
import { collect } from "../helpers/model.ts";
import { LLAMA_START_TIMEOUT, withoutLlama } from "../helpers/llama.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { alive, gone } from "../helpers/gguf.ts";

test("the server's log is begun afresh at each start and rotated past its cap, one older file kept", () => {
  const path = join(tempFolder("server"), ".glassbox", "llama-server.log");
  const log = new ServerLog(path, 100);
  log.begin(["llama-server", "-m", "m.gguf"]);
  expect(readFileSync(path, "utf8")).toBe("$ llama-server -m m.gguf\n");
  const line = (n: number) => `line ${n} ${"x".repeat(40)}\n`;
  log.write(line(1));
  log.write(line(2));
  // 121 bytes, past the cap of 100: the next write starts a new file, the full one kept as .1.
  log.write(line(3));
  expect(readFileSync(`${path}.1`, "utf8")).toBe(`$ llama-server -m m.gguf\n${line(1)}${line(2)}`);
  expect(readFileSync(path, "utf8")).toBe(line(3));
  for (let n = 4; n <= 6; n++) log.write(line(n));
  // Only one older file: the next rotation replaces it.
  expect(readFileSync(`${path}.1`, "utf8")).toBe(`${line(3)}${line(4)}${line(5)}`);
  expect(readFileSync(path, "utf8")).toBe(line(6));
  expect(existsSync(`${path}.2`)).toBe(false);
  // A new start begins the log afresh.
  log.begin(["llama-server"]);
  expect(readFileSync(path, "utf8")).toBe("$ llama-server\n");
});

describe.skipIf(await withoutLlama())("a llama-server glassbox started", () => {
  let launch: ServerLaunch;
  beforeAll(async () => {
    launch = { binary: [await llamaServerExecutable()], model: await testModel("tools"), window: 4096, slots: 1, extraArgs: [], logPath: join(tempFolder("server"), ".glassbox", "llama-server.log") };
  }, LLAMA_START_TIMEOUT);

  test("is ready once loaded, says how it was started, and is gone after stop()", async () => {
    const lines: string[] = [];
    const { server, loadMs } = await LlamaServerProcess.start(launch, (line) => lines.push(line));
    expect(loadMs).toBeGreaterThan(0);
    expect(server.command).toEqual([...launch.binary, "-m", launch.model, "--jinja", "-np", "1", "--host", "127.0.0.1", "--port", String(server.port), "-c", "4096"]);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    await server.stop();
    expect(alive(server.pid)).toBe(false);
    expect(server.describeExit()).toMatch(/^(exited with code 0|was killed by SIGTERM)$/);
  }, LLAMA_START_TIMEOUT);

  test("outlives a glassbox killed with SIGKILL by at most a few seconds (the watchdog)", async () => {
    const script = `
      import { LlamaServerProcess } from ${JSON.stringify(join(import.meta.dir, "../../src/model/llama-server-process.ts"))};
      const { server } = await LlamaServerProcess.start(${JSON.stringify(launch)});
      console.log(server.pid);
      await Bun.sleep(60_000);`;
    const file = join(tempFolder("server"), "holder.ts");
    await Bun.write(file, script);
    const holder = Bun.spawn([process.execPath, file], { stdout: "pipe", stderr: "inherit" });
    const reader = (holder.stdout as ReadableStream<Uint8Array>).getReader();
    const pid = Number(new TextDecoder().decode((await reader.read()).value).trim());
    expect(alive(pid)).toBe(true);
    holder.kill("SIGKILL");
    await holder.exited;
    expect(await gone(pid, 5000)).toBe(true);
  }, LLAMA_START_TIMEOUT);

  test("a request after the server died says how it ended and its log's last line, and does not start another behind the run's back", async () => {
    const model = new GgufModel("gguf:test", { ...launch, model: await testModel("calls") }, ModelOptionsSchema.parse({ max_tokens: 200 }));
    const started = await model.start();
    process.kill(started.pid, "SIGKILL");
    expect(await gone(started.pid, 5000)).toBe(true);
    await Bun.sleep(200); // its exit is noticed
    for (let attempt = 0; attempt < 2; attempt++) {
      const { error } = await collect(model, { messages: [{ role: "user", content: "hi" }], tools: [], signal: new AbortController().signal });
      expect(error).toBeInstanceOf(ModelError);
      expect(error!.message).toMatch(/^llama-server was killed by SIGKILL during the run; the last line of its log: ".+"$/);
    }
    expect(model.running).toBeNull();
    // Killed in the middle of a reply (its 200 tokens take seconds under the tool grammar): the same.
    const restarted = await model.start();
    const abort = new AbortController();
    const midway = (async () => {
      try {
        for await (const delta of model.reply({ messages: [{ role: "user", content: "hi" }], tools: [{ name: "read_file", description: "r", parameters: { type: "object", properties: { path: { type: "string" } } } }], signal: abort.signal })) {
          if (delta.type === "tool_call") process.kill(restarted.pid, "SIGKILL");
        }
        return null;
      } catch (error) {
        return error as Error;
      }
    })();
    expect((await midway)?.message).toMatch(/^llama-server was killed by SIGKILL during the run/);
    // Started again only when asked (the TUI's picker does).
    const again = await model.start();
    expect(again.pid).not.toBe(started.pid);
    await model.stop();
  }, LLAMA_START_TIMEOUT);
});
