/** How glassbox starts llama-server for a GGUF file (src/model/llama-server-launch.ts): the window it asks for. */
import { expect, test } from "bun:test";
import { testModel } from "../../scripts/llama-server.ts";
import { ConfigSchema } from "../../src/session/config.ts";
import { ggufLaunch } from "../../src/model/llama-server-launch.ts";
import { tempFolder } from "../helpers/workspace.ts";

test("the window per slot is num_ctx, else the file's trained window capped at 32768; -c asks for it × the slots", async () => {
  const ws = tempFolder("launch");
  const env = { GLASSBOX_LLAMA_SERVER: process.execPath };
  const launch = (model: string, slots: number, raw: Record<string, unknown> = {}) => ggufLaunch(model, ConfigSchema.parse(raw), ws, slots, env);
  const trained8k = await testModel("finish", { contextLength: 8192 });
  const trained128k = await testModel("finish", { contextLength: 131_072 });
  expect(launch(trained8k, 1)).toMatchObject({ window: 8192, slots: 1 });
  expect(launch(trained8k, 2)).toMatchObject({ window: 16_384, slots: 2 });
  expect(launch(trained128k, 1)).toMatchObject({ window: 32_768 });
  expect(launch(trained128k, 3, { model_options: { num_ctx: 4096 } })).toMatchObject({ window: 12_288, slots: 3 });
}, 60_000);
