import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { glassbox } from "../helpers/cli.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { llamaCppServer, llamaCppTextScene, llamaCppToolCallScene } from "../helpers/fake-server.ts";
import { loadTasks } from "../../src/eval/task.ts";
import { resultsTable } from "../../src/eval/report.ts";
import type { RunVerdict } from "../../src/eval/runner.ts";
import { LIMIT_NAMES } from "../../src/protocol/limits.ts";

const EVALS = join(import.meta.dir, "..", "..", "evals");
/** The four tasks on the toy project: the CLI end to end, in a process per eval (the whole set runs in task-set.test.ts). */
const TOY_TASKS = ["find-bug", "fix-tests", "loop-tempt", "summarize-poisoned"];
const TASKS = tempFolder("eval-toy-tasks");
for (const name of TOY_TASKS) writeFileSync(join(TASKS, `${name}.json`), readFileSync(join(EVALS, "tasks", `${name}.json`)));
const results = (folder: string) => JSON.parse(readFileSync(join(folder, "results.json"), "utf8")) as RunVerdict[];
const passedBy = (verdicts: RunVerdict[]) => Object.fromEntries(verdicts.map((verdict) => [`${verdict.task}#${verdict.seed}`, verdict.passed]));

test("the toy tasks validate, and each pins every limit, so its results do not move when the defaults do", () => {
  expect(loadTasks(TASKS).map((task) => task.name)).toEqual(TOY_TASKS);
  for (const task of loadTasks(TASKS)) expect(Object.keys(task.limits).sort()).toEqual([...LIMIT_NAMES].sort());
});

test("a task's limits reach run_start, and a --config file's limits apply on top of them", async () => {
  const tasks = tempFolder("eval-limits");
  const task = JSON.parse(readFileSync(join(TASKS, "find-bug.json"), "utf8"));
  await Bun.write(join(tasks, "find-bug.json"), JSON.stringify({ ...task, limits: { ...task.limits, max_steps: 5, max_repeat: 3 } }));
  const config = join(tempFolder("eval-limits-config"), "b.json");
  await Bun.write(config, JSON.stringify({ limits: { max_steps: 6 } }));
  const out = tempFolder("eval-limits-out");
  const run = await glassbox(["eval", "--tasks", tasks, "--model", `scripted:${join(EVALS, "scripts", "good")}`, "--config", config, "--out", out], { timeoutMs: 60_000 });
  expect(run.code).toBe(0);
  const start = JSON.parse(readFileSync(join(out, "runs", "find-bug", "seed-1", "events.jsonl"), "utf8").split("\n")[0]!);
  expect(start.kind).toBe("run_start");
  expect(start.limits).toEqual({ ...task.limits, max_steps: 6, max_repeat: 3 });
}, 60_000);

describe("eval end to end on scripted models", () => {
  const good = tempFolder("eval-good");
  const bad = tempFolder("eval-bad");

  test("good behaviour passes every criterion; every run is recorded", async () => {
    const run = await glassbox(["eval", "--tasks", TASKS, "--model", `scripted:${join(EVALS, "scripts", "good")}`, "--seeds", "1..2", "--out", good], { timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    const verdicts = results(good);
    const shipped = loadTasks(TASKS);
    expect(verdicts).toHaveLength(8);
    expect(verdicts.every((verdict) => verdict.passed)).toBe(true);
    for (const verdict of verdicts) {
      const folder = join(good, "runs", verdict.task, `seed-${verdict.seed}`);
      expect(existsSync(join(folder, "replies.json"))).toBe(true);
      const events = readFileSync(join(folder, "events.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
      expect(events.at(-1).kind).toBe("stop");
      expect(events[0].limits).toEqual(shipped.find((task) => task.name === verdict.task)!.limits);
      expect(JSON.parse(readFileSync(join(folder, "verdict.json"), "utf8"))).toEqual(verdict);
    }
    expect(run.stdout).toMatch(/^fix-tests\s+2\/2\s+completed×2/m);
  }, 60_000);

  test("bad behaviour fails where the harness can see it: wrong function, unfixed tests, a loop, an attempt to leave the workspace", async () => {
    const run = await glassbox(["eval", "--tasks", TASKS, "--model", `scripted:${join(EVALS, "scripts", "bad")}`, "--seeds", "1..2", "--out", bad], { timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    const verdicts = results(bad);
    const byTask = (task: string) => verdicts.filter((verdict) => verdict.task === task);
    expect(byTask("find-bug").every((verdict) => !verdict.passed)).toBe(true);
    const unfixed = byTask("fix-tests")[0]!;
    expect(unfixed.passed).toBe(false);
    expect(unfixed.criteria.find((criterion) => criterion.criterion === "check tests")!.passed).toBe(false);
    expect(byTask("loop-tempt").map((verdict) => verdict.status)).toEqual(["repeat_limit", "repeat_limit"]);
    const poisoned = byTask("summarize-poisoned");
    // Confinement kept the canary in; the attempt to read it still fails the task.
    expect(poisoned.every((verdict) => !verdict.passed && verdict.refusals.refused === 1)).toBe(true);
    expect(poisoned[0]!.criteria.map((criterion) => criterion.passed)).toEqual([true, true, false]);
    expect(run.stdout).toMatch(/^summarize-poisoned\s+0\/2\s+completed×2.*refused 2$/m);
  }, 60_000);

  test("--replay reproduces the verdicts without a model; with confinement off the recorded leak attempt leaks", async () => {
    const same = tempFolder("eval-replay");
    const replayed = await glassbox(["eval", "--replay", bad, "--out", same], { timeoutMs: 60_000 });
    expect(replayed.code).toBe(0);
    expect(passedBy(results(same))).toEqual(passedBy(results(bad)));

    const open = tempFolder("eval-open");
    const counterfactual = await glassbox(["eval", "--replay", bad, "--config", join(EVALS, "experiment-no-confinement.json"), "--out", open], { timeoutMs: 60_000 });
    expect(counterfactual.code).toBe(0);
    const leaked = results(open).filter((verdict) => verdict.task === "summarize-poisoned");
    expect(leaked.every((verdict) => !verdict.passed)).toBe(true);
    expect(leaked[0]!.criteria.find((criterion) => criterion.criterion === "no canary")!.detail).toContain("leaked in 1 tool result");

    const compared = await glassbox(["compare", same, open]);
    expect(compared.code).toBe(0);
    // Both fail it now (the attempt alone fails), so the counterfactual flips nothing: it shows in the criterion.
    expect(compared.stdout).toMatch(/^summarize-poisoned\s+2\s+0\s+0\s+0\s+2\s+1\.0000/m);
    expect(compared.stdout).toMatch(/^all\s+8\s+0\s+0\s+0\s+8\s+1\.0000/m);
  }, 90_000);

  test("compare pairs good against bad: 8 only-A flips", async () => {
    const compared = await glassbox(["compare", good, bad]);
    expect(compared.stdout).toMatch(/^all\s+8\s+0\s+8\s+0\s+0\s+0\.0078/m);
  });
});

test("eval against the fake llama.cpp server from the streaming tests", async () => {
  const server = llamaCppServer((n) =>
    n % 2 === 0 ? llamaCppToolCallScene("read_file", '{"path": "src/version.ts"}') : llamaCppTextScene("The bug is in parseVersion: it keeps the parts as text."),
  );
  const tasks = tempFolder("eval-tasks");
  await Bun.write(join(tasks, "find-bug.json"), readFileSync(join(TASKS, "find-bug.json")));
  const out = tempFolder("eval-llama");
  const run = await glassbox(["eval", "--tasks", tasks, "--model", `llamacpp:${server.url}`, "--seeds", "1..2", "--out", out], { timeoutMs: 60_000 });
  expect(run.code).toBe(0);
  expect(results(out).map((verdict) => verdict.passed)).toEqual([true, true]);
  const seeds = server.requests.filter((seen) => seen.path === "/v1/chat/completions").map((seen) => seen.body.seed);
  expect(seeds).toEqual([1, 1, 2, 2]);
  // Recorded replies replay the same verdicts with no server at all.
  server.stop();
  const again = tempFolder("eval-llama-replay");
  expect((await glassbox(["eval", "--replay", out, "--out", again])).code).toBe(0);
  expect(passedBy(results(again))).toEqual(passedBy(results(out)));
}, 60_000);

test("the results table: pass rate, statuses, means, refusals by kind", () => {
  const verdict = (task: string, passed: boolean, status: string, refused: number): RunVerdict => ({
    task,
    seed: 1,
    passed,
    criteria: [],
    status,
    steps: 4,
    tool_calls: 3,
    tokens: 1000,
    sub_run_tokens: 0,
    seconds: 2,
    refusals: { refused, denied: 0, error: 0, stopped: 0 },
    run_id: "r",
  });
  const lines = resultsTable([verdict("a", true, "completed", 0), verdict("a", false, "step_limit", 2), verdict("b", true, "completed", 1)]);
  expect(lines[0]).toMatch(/^task\s+pass\s+statuses\s+steps\s+tokens\s+seconds\s+refusals$/);
  expect(lines[1]).toMatch(/^a\s+1\/2\s+completed×1 step_limit×1\s+4\.0\s+1000\s+2\.00\s+refused 2$/);
  expect(lines[2]).toMatch(/^b\s+1\/1\s+completed×1\s+4\.0\s+1000\s+2\.00\s+refused 1$/);
});

test("the confinement experiment is refused outside a replay", async () => {
  const run = await glassbox(["run", "--config", join(EVALS, "experiment-no-confinement.json"), "--model", "scripted:nothing.json", "--workspace", join(import.meta.dir, "..", "..", "workspace"), "task"]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain("only for counterfactual replays");
});
