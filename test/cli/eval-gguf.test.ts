/**
 * `eval --model gguf:PATH --jobs N` against the test suite's real llama-server: one server with
 * N slots serves every run (N at once), and it is stopped when the eval ends; `--shard` and
 * `--resume` start theirs the same way. The "finish" model ends every task at step 1.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { llamaServerExecutable, testModel } from "../../scripts/llama-server.ts";
import { glassbox, type CliResult } from "../helpers/cli.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { LLAMA_START_TIMEOUT, withoutLlama } from "../helpers/llama.ts";
import { alive, modelCopy, serversOf, truncatedCopy } from "../helpers/gguf.ts";

const LIMITS = { max_steps: 3, max_tool_calls: 4, max_calls_per_reply: 4, max_repeat: 2, deadline_seconds: 60, max_result_chars: 2000, max_transcript_chars: 12000, max_tokens: 0, max_sub_run_steps: 12 };
const TASKS = ["a", "b", "c"];

/** Three tasks on the toy project, and an arm config with a small window per slot. */
function taskSet(): { tasks: string; arm: string; out: string } {
  const root = tempFolder("eval-gguf");
  const tasks = join(root, "tasks");
  mkdirSync(tasks);
  for (const name of TASKS) writeFileSync(join(tasks, `${name}.json`), JSON.stringify({ prompt: "Read README.md", workspace: "toy", pass: [{ status: "completed" }], limits: LIMITS }));
  const arm = join(root, "small.json");
  writeFileSync(arm, JSON.stringify({ model_options: { num_ctx: 4096 } }));
  return { tasks, arm, out: join(root, "out") };
}

/** The servers the eval said it started: pid, port and slots of each. */
function serversStarted(result: CliResult): Array<{ pid: number; port: number; slots: number }> {
  return [...result.stderr.matchAll(/started llama-server for gguf:\S+ \(pid (\d+), port (\d+), (\d+) slot\(s\)\)/g)].map((match) => ({ pid: Number(match[1]), port: Number(match[2]), slots: Number(match[3]) }));
}

const eventsOf = (out: string, task: string) =>
  readFileSync(join(out, "runs", task, "seed-1", "events.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));

const verdicts = (out: string) => JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Array<{ task: string; status: string }>;

describe.skipIf(await withoutLlama())("eval --model gguf:PATH", () => {
  let env: Record<string, string>;
  let finish: string;
  beforeAll(async () => {
    env = { GLASSBOX_LLAMA_SERVER: await llamaServerExecutable() };
    finish = await testModel("finish");
  }, LLAMA_START_TIMEOUT);

  const evaluate = (args: string[]) => glassbox(["eval", ...args], { env, timeoutMs: 150_000 });

  test("--jobs 2: one server with 2 slots and the window per slot × 2 serves every run, two at once, and is stopped after", async () => {
    const model = modelCopy(finish);
    const { tasks, arm, out } = taskSet();
    const result = await evaluate(["--tasks", tasks, "--model", `gguf:${model}`, "--config", arm, "--jobs", "2", "--out", out]);
    expect(result.code).toBe(0);
    const servers = serversStarted(result);
    expect(servers).toEqual([{ pid: expect.any(Number), port: expect.any(Number), slots: 2 }]);
    const { pid, port } = servers[0]!;
    const log = readFileSync(join(out, "llama-server.log"), "utf8");
    expect(log.split("\n")[0]).toBe(`$ ${env.GLASSBOX_LLAMA_SERVER} -m ${model} --jinja -np 2 --host 127.0.0.1 --port ${port} -c 8192`);
    // A request went to the second slot: two runs were under way at once (a reply under the tool grammar takes seconds).
    expect(log).toMatch(/launch_slot_: id +1 \|/);
    expect(verdicts(out).map((verdict) => [verdict.task, verdict.status])).toEqual(TASKS.map((task) => [task, "completed"]));
    for (const task of TASKS) {
      const events = eventsOf(out, task);
      expect(events.find((event) => event.kind === "run_start").model).toBe(`llamacpp:http://127.0.0.1:${port}`);
      expect(events.find((event) => event.kind === "model_info")).toEqual({ kind: "model_info", context_size: 4096 });
    }
    expect(alive(pid)).toBe(false);
    expect(serversOf(model)).toEqual([]);
  }, 180_000);

  test("--shard, then --resume of a run left unfinished: each starts one server, for the runs it owes, and stops it", async () => {
    const model = modelCopy(finish);
    const { tasks, arm, out } = taskSet();
    const shard = await evaluate(["--tasks", tasks, "--model", `gguf:${model}`, "--config", arm, "--shard", "1/2", "--jobs", "2", "--out", out]);
    expect(shard.code).toBe(0);
    expect(serversStarted(shard).map((server) => server.slots)).toEqual([2]);
    expect(verdicts(out).map((verdict) => verdict.task)).toEqual(["a", "c"]);
    // A run without its verdict is one an interrupted eval left: --resume runs it again.
    rmSync(join(out, "runs", "c", "seed-1", "verdict.json"));
    const resumed = await evaluate(["--resume", out, "--jobs", "2"]);
    expect(resumed.code).toBe(0);
    const servers = serversStarted(resumed);
    expect(servers.map((server) => server.slots)).toEqual([1]);
    expect(verdicts(out).map((verdict) => [verdict.task, verdict.status])).toEqual([["a", "completed"], ["c", "completed"]]);
    expect(eventsOf(out, "c").find((event) => event.kind === "run_start").model).toBe(`llamacpp:http://127.0.0.1:${servers[0]!.port}`);
    expect(alive(servers[0]!.pid)).toBe(false);
    expect(serversOf(model)).toEqual([]);
  }, 180_000);

  test("a model file the server cannot be started for: exit 2 before any run", async () => {
    const cut = truncatedCopy(finish);
    const { tasks, out } = taskSet();
    const result = await evaluate(["--tasks", tasks, "--model", `gguf:${cut}`, "--jobs", "2", "--out", out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^glassbox: .+cut\.gguf is truncated/m);
    expect(verdicts(out)).toEqual([]);
    expect(serversOf(cut)).toEqual([]);
  }, 60_000);
});
