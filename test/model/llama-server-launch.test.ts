/** How glassbox starts llama-server for a GGUF file (src/model/llama-server-launch.ts): the window it asks for. */
import { expect, test } from "bun:test";
import { statSync } from "node:fs";
import { testModel } from "../../scripts/llama-server.ts";
import { ConfigSchema } from "../../src/session/config.ts";
import { ggufLaunch } from "../../src/model/llama-server-launch.ts";
import { serverCommand } from "../../src/model/llama-server-process.ts";
import { tempFolder } from "../helpers/workspace.ts";

test("the window per slot is num_ctx, else the file's trained window as far as memory allows (past 32768 where it does); -c asks for it × the slots", async () => {
  const ws = tempFolder("launch");
  const env = { GLASSBOX_LLAMA_SERVER: process.execPath };
  const roomy = 64 * 1024 ** 3;
  const launch = (model: string, slots: number, raw: Record<string, unknown> = {}, free = roomy) => ggufLaunch(model, ConfigSchema.parse(raw), ws, slots, env, free);
  const trained8k = await testModel("finish", { contextLength: 8192 });
  const trained128k = await testModel("finish", { contextLength: 131_072 });
  expect(launch(trained8k, 1)).toMatchObject({ window: 8192, slots: 1 });
  expect(launch(trained8k, 2)).toMatchObject({ window: 16_384, slots: 2 });
  expect(launch(trained128k, 1)).toMatchObject({ window: 131_072, archArgs: [] });
  // The test model's KV cache is 512 bytes a token: 40 MiB free, less its 45 MB of weights, leaves nothing: the floor of 4096.
  expect(launch(trained128k, 1, {}, 40 * 1024 ** 2)).toMatchObject({ window: 4096 });
  const size = statSync(trained128k).size;
  const tight = launch(trained128k, 1, {}, size + 16 * 1024 ** 2);
  expect(tight.window).toBe(Math.floor((8 * 1024 ** 2) / 512 / 256) * 256);
  expect(tight.plan!.windowReason).toStartWith("free memory:");
  expect(launch(trained128k, 3, { model_options: { num_ctx: 4096 } })).toMatchObject({ window: 12_288, slots: 3 });
}, 60_000);

test("Gemma 3's sliding-window layers: --swa-full after glassbox's flags and before the person's, its memory printed", async () => {
  const launch = ggufLaunch(await testModel("gemma3"), ConfigSchema.parse({ llama_server: { args: ["--threads", "2"] } }), tempFolder("launch"), 1, { GLASSBOX_LLAMA_SERVER: process.execPath }, 8 * 1024 ** 3);
  const command = serverCommand(launch, 1234);
  expect(command.slice(command.indexOf("-c"))).toEqual(["-c", "32768", "--swa-full", "--threads", "2"]);
  expect(launch.plan!.cachePlan).toBe("sliding-window layers (5 of 6, window 128): --swa-full keeps the prompt cache past a compaction, at 48.0 MiB of KV cache instead of 8.8 MiB");
}, 60_000);

test("llama_server.swa_full: false starts Gemma 3 without --swa-full, where it would fit, and the cache line says why", async () => {
  const launch = ggufLaunch(await testModel("gemma3"), ConfigSchema.parse({ llama_server: { swa_full: false } }), tempFolder("launch"), 1, { GLASSBOX_LLAMA_SERVER: process.execPath }, 8 * 1024 ** 3);
  expect(serverCommand(launch, 1234)).not.toContain("--swa-full");
  expect(launch.plan!.cachePlan).toContain("llama_server.swa_full is false");
  expect(launch.plan!.batchedCompaction).toBe(true);
}, 60_000);
