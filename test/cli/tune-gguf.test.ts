/**
 * `glassbox tune --quick` against the test suite's real llama-server with a generated model (the
 * "finish" model, which ends every task at step 1): the whole battery runs through one server,
 * the lines come, the profile is written under the model's identity and the next run applies it.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { llamaServerExecutable, testModel } from "../../scripts/llama-server.ts";
import { glassbox } from "../helpers/cli.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { LLAMA_START_TIMEOUT, withoutLlama } from "../helpers/llama.ts";
import { modelCopy, serversOf } from "../helpers/gguf.ts";
import { QUICK_BATTERY, TUNE_SETTINGS } from "../../src/eval/tune.ts";

describe.skipIf(await withoutLlama())("tune --quick against a real llama-server", () => {
  let env: Record<string, string>;
  let finish: string;
  beforeAll(async () => {
    env = { GLASSBOX_LLAMA_SERVER: await llamaServerExecutable(), XDG_CONFIG_HOME: tempFolder("tune-gguf-config") };
    finish = await testModel("finish");
  }, LLAMA_START_TIMEOUT);

  test("the battery runs through one server, a line per setting, the profile written and applied to the next run", async () => {
    const model = modelCopy(finish);
    const ws = tempFolder("tune-gguf-ws");
    // A smaller window than the model's 32K: every arm shares it, the server holds less.
    writeFileSync(join(ws, "glassbox.json"), JSON.stringify({ model_options: { num_ctx: 8192 } }));
    const out = join(tempFolder("tune-gguf-out"), "out");
    const result = await glassbox(["tune", "--model", `gguf:${model}`, "--quick", "--jobs", "2", "--workspace", ws, "--out", out], { env, timeoutMs: 900_000 });
    expect(result.code).toBe(0);
    expect([...result.stderr.matchAll(/started llama-server for gguf:/g)]).toHaveLength(1);
    // Every quick task once for the defaults and once per setting's other value.
    const runs = QUICK_BATTERY.length * (TUNE_SETTINGS.length + 1);
    expect(result.stderr).toContain(`${runs}/${runs} runs`);
    const lines = result.stdout.split("\n");
    for (const setting of TUNE_SETTINGS) expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${setting.key.replaceAll(".", "\\.")}: .+ \\(kept\\) — \\d/\\d passes, p=[\\d.]+$`)));
    expect(lines).toContainEqual(expect.stringMatching(/^speed: first token \d+ ms, prefill \d+ tok\/s, generation \d+ tok\/s/));
    const path = /^profile: (\S+)/m.exec(result.stdout)![1]!;
    const profile = JSON.parse(readFileSync(path, "utf8"));
    expect(profile.identity).toMatchObject({ server: "llama.cpp", model, file_digest: expect.stringMatching(/^\d+:[0-9a-f]{16}$/) });
    expect(serversOf(model)).toEqual([]);
    const run = await glassbox(["run", "--json", "--model", `gguf:${model}`, "--workspace", ws, "Read README.md"], { env, timeoutMs: 120_000 });
    expect(run.events.find((event) => event.kind === "run_start")!.profile).toEqual({ path, settings: {} });
  }, 900_000);
});
