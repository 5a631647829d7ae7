import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { CliArgs } from "./args.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { ConfigSchema } from "../session/config.ts";
import { parseWith } from "../protocol/parse-with.ts";
import { loadTasks, type Task } from "../eval/task.ts";
import { readVerdict, runFolder, runOne, type RunVerdict, type ServerReach } from "../eval/runner.ts";
import { INSECURE_TLS_WARNING } from "../model/access.ts";
import { compareTable, resultsTable } from "../eval/report.ts";
import { inParallel } from "../eval/pool.ts";
import { EvalProgress, type ProgressSink } from "../eval/progress.ts";
import { startArmServers, type ArmServers } from "../eval/own-servers.ts";
import { ARMS, MANIFEST, RESULTS, mergeArms, planRuns, readManifest, readVerdicts, taskDigest, writeJson, type ArmResults, type Manifest } from "../eval/results.ts";

/** One arm being run: its folder, what it runs with, its tasks and the runs it owes. */
export interface ArmRun {
  folder: string;
  manifest: Manifest;
  tasks: Task[];
  plan: Array<[Task, number]>;
}

const stderrSink: ProgressSink = { tty: Boolean(process.stderr.isTTY), write: (text) => void process.stderr.write(text) };

/**
 * `glassbox eval`: each task per seed on a fresh workspace copy, for each arm (one per
 * `--config`), `--jobs` runs at once; every run recorded under its arm's folder (config, replies,
 * events, verdict) and results.json; a table per arm at the end, and each arm against the first.
 * `--replay RUNS_DIR` feeds the recorded replies back through the current harness instead;
 * `--resume OUT` finishes an interrupted eval.
 */
export async function evaluate(
  args: CliArgs,
  out: (line: string) => void = (line) => console.log(line),
  progress: ProgressSink = stderrSink,
  stop?: AbortSignal,
): Promise<number> {
  const arms = args.resumeEval ? resumeArms(args) : args.replay ? replayArm(args) : newArms(args);
  const interrupted = await runOwed(arms, args, progress, stop, "eval");
  if (interrupted !== null) return interrupted;
  for (const arm of arms) {
    const verdicts = readVerdicts(arm.folder);
    out(`${arm.manifest.replay ? "replayed" : "ran"} ${verdicts.length} run(s) of arm ${arm.manifest.arm}; results in ${arm.folder}`);
    for (const line of resultsTable(verdicts)) out(line);
  }
  if (arms.length > 1) for (const line of compareLines(mergeArms(arms.map((arm) => arm.folder)))) out(line);
  return 0;
}

/**
 * The runs the arms owe, `args.jobs` at once, with Ctrl-C as eval takes it: eval's and tune's one
 * way to run arms. Null when they all ran; INTERRUPTED_EXIT when Ctrl-C stopped them (said on
 * `progress`, with the `glassbox COMMAND --resume OUT` that runs the rest).
 */
export async function runOwed(arms: ArmRun[], args: CliArgs, progress: ProgressSink, stop: AbortSignal | undefined, command: "eval" | "tune"): Promise<number | null> {
  const interrupt = stop ? { signal: stop, close: () => {} } : onInterrupt();
  try {
    if (args.insecureTls) progress.write(`glassbox: ${INSECURE_TLS_WARNING}\n`);
    await runArms(arms, args.jobs, progress, interrupt.signal, { modelName: args.modelName, apiKeyEnv: args.apiKeyEnv, caFile: args.caFile, insecureTls: args.insecureTls });
  } finally {
    interrupt.close();
  }
  if (!interrupt.signal.aborted) return null;
  const kept = arms.reduce((sum, arm) => sum + readVerdicts(arm.folder).length, 0);
  const owed = arms.reduce((sum, arm) => sum + arm.plan.length, 0);
  const outDir = arms.length > 1 ? dirname(arms[0]!.folder) : arms[0]!.folder;
  // On a terminal the progress line is still open.
  progress.write(`${progress.tty ? "\n" : ""}interrupted: ${kept} of ${owed} run(s) finished and kept; the runs that were stopped left nothing. glassbox ${command} --resume ${outDir} runs the rest\n`);
  return INTERRUPTED_EXIT;
}

/** What a shell reports for a command stopped by Ctrl-C (128 + SIGINT). */
export const INTERRUPTED_EXIT = 130;

/**
 * Ctrl-C (or SIGTERM) stops the eval: the runs under way are stopped as a person's Esc stops one
 * (their checks killed, their workspace copies removed), none is judged, and no new one starts. A
 * second Ctrl-C quits at once.
 */
function onInterrupt(): { signal: AbortSignal; close(): void } {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(INTERRUPTED_EXIT);
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    close() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** `glassbox compare RESULTS…`: folders of one arm merged, then each arm against the first. */
export function compare(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): number {
  const arms = mergeArms(args.paths!);
  if (arms.length < 2) throw new UsageError(`the folders hold one arm (${arms[0]!.label}); compare needs results of two or more arms`);
  for (const line of compareLines(arms)) out(line);
  return 0;
}

function compareLines(arms: ArmResults[]): string[] {
  const [first, ...rest] = arms;
  return rest.flatMap((arm) => [`B = ${arm.label} against A = ${first!.label}:`, ...compareTable(first!.verdicts, arm.verdicts)]);
}

function newArms(args: CliArgs): ArmRun[] {
  if (!args.tasks) throw new UsageError("eval needs --tasks DIR (or --replay RUNS_DIR, or --resume OUT)");
  if (!args.model) throw new UsageError("eval needs --model SPEC (scripted:DIR plays DIR/<task>.json per task)");
  const tasks = loadTasks(resolve(args.tasks));
  const seeds = args.seeds ?? [1];
  const configs = args.configs.map((path) => ({ name: basename(path).replace(/\.json$/, ""), config: readArmConfig(path) }));
  const named = configs.length ? configs : [{ name: "default", config: null }];
  const duplicate = named.find((arm, index) => named.findIndex((other) => other.name === arm.name) !== index);
  if (duplicate) throw new UsageError(`two --config files are named ${duplicate.name}.json; an arm is named by its file, so rename one`);
  const outDir = resolve(args.out ?? join("eval-results", stamp()));
  const several = named.length > 1;
  const arms = named.map(({ name, config }) => {
    const folder = several ? join(outDir, name) : outDir;
    refuseFinished(folder);
    const manifest: Manifest = { version: 1, arm: name, model: args.model!, ...(args.baseUrl ? { base_url: args.baseUrl } : {}), config, seeds, shard: args.shard, tasks: tasks.map((task) => task.name), task_digest: taskDigest(tasks) };
    return startArm(folder, manifest, tasks, planRuns(tasks, seeds, args.shard));
  });
  if (several) writeJson(join(outDir, ARMS), { arms: named.map((arm) => arm.name) });
  return arms;
}

function replayArm(args: CliArgs): ArmRun[] {
  const replay = resolve(args.replay!);
  if (args.configs.length > 1) throw new UsageError("a replay takes one --config (the harness to replay through)");
  const tasks = loadTasks(join(replay, "tasks"));
  const folder = resolve(args.out ?? `${replay}-replay-${stamp()}`);
  refuseFinished(folder);
  const recorded = readManifest(replay);
  const config = args.config ? readArmConfig(args.config) : null;
  const manifest: Manifest = {
    version: 1,
    arm: args.config ? basename(args.config).replace(/\.json$/, "") : (recorded?.arm ?? "default"),
    model: `replay:${replay}`,
    config,
    seeds: recorded?.seeds ?? [...new Set(readVerdicts(replay).map((verdict) => verdict.seed))],
    shard: recorded?.shard ?? null,
    tasks: tasks.map((task) => task.name),
    task_digest: taskDigest(tasks),
    replay,
  };
  return [startArm(folder, manifest, tasks, replayPlan(replay, tasks))];
}

function replayPlan(replay: string, tasks: Task[]): Array<[Task, number]> {
  return readVerdicts(replay).map((verdict) => {
    const task = tasks.find((candidate) => candidate.name === verdict.task);
    if (!task) throw new UsageError(`the recorded results name task ${verdict.task}, but its task file is not in the results' tasks/ folder`);
    return [task, verdict.seed];
  });
}

/** The arms of an interrupted eval, from what its folders recorded; only the server address may change. */
function resumeArms(args: CliArgs): ArmRun[] {
  if (args.tasks || args.model || args.seeds || args.configs.length || args.shard || args.replay || args.out) {
    throw new UsageError("--resume OUT takes its tasks, model, seeds, configs and shard from OUT; pass only --jobs (and --base-url if the server moved)");
  }
  return armsIn(resolve(args.resumeEval!), args.baseUrl);
}

/** The arms an eval's output folder holds (with several, arms.json names them), ready to run what they still owe. */
export function armsIn(outDir: string, baseUrl: string | undefined): ArmRun[] {
  const armsFile = join(outDir, ARMS);
  const folders = existsSync(armsFile) ? (JSON.parse(readFileSync(armsFile, "utf8")) as { arms: string[] }).arms.map((arm) => join(outDir, arm)) : [outDir];
  return folders.map((folder) => {
    const manifest = readManifest(folder);
    if (!manifest) throw new UsageError(`${folder} has no ${MANIFEST}: --resume needs the output folder of a glassbox eval`);
    if (baseUrl) manifest.base_url = baseUrl;
    const tasks = loadTasks(join(folder, "tasks"));
    if (taskDigest(tasks) !== manifest.task_digest) throw new UsageError(`the task files in ${join(folder, "tasks")} changed since the eval started; start a new eval`);
    return { folder, manifest, tasks, plan: manifest.replay ? replayPlan(manifest.replay, tasks) : planRuns(tasks, manifest.seeds, manifest.shard) };
  });
}

/** Writes the arm's manifest and task files (with their workspaces), so replay and resume need nothing else. */
export function startArm(folder: string, manifest: Manifest, tasks: Task[], plan: Array<[Task, number]>): ArmRun {
  mkdirSync(join(folder, "tasks"), { recursive: true });
  writeJson(join(folder, MANIFEST), manifest);
  for (const task of tasks) writeFileSync(join(folder, "tasks", `${task.name}.json`), JSON.stringify({ ...task, folder: undefined }, null, 2) + "\n");
  copyTaskAssets(tasks, folder);
  // Runs read the copies, so a fresh eval and a resumed one run the very same files.
  const copies = new Map(loadTasks(join(folder, "tasks")).map((task) => [task.name, task]));
  return { folder, manifest, tasks: [...copies.values()], plan: plan.map(([task, seed]) => [copies.get(task.name)!, seed]) };
}

/**
 * Every run not yet finished, all arms together, `jobs` at once; results.json rewritten as each
 * lands. The llama-servers of gguf: arms are started once before the runs and stopped after them.
 */
async function runArms(arms: ArmRun[], jobs: number, sink: ProgressSink, stop: AbortSignal, reach: ServerReach): Promise<void> {
  const finished = arms.map((arm) => new Map(arm.plan.flatMap(([task, seed]) => {
    const verdict = readVerdict(arm.folder, task.name, seed);
    return verdict ? [[`${task.name}#${seed}`, verdict] as const] : [];
  })));
  const todo = arms.flatMap((arm, which) => arm.plan.filter(([task, seed]) => !finished[which]!.has(`${task.name}#${seed}`)).map(([task, seed]) => ({ which, task, seed })));
  const carried = finished.flatMap((map) => [...map.values()]);
  arms.forEach((arm, which) => writeResults(arm, finished[which]!));
  const servers = await serversFor(arms, todo.length, jobs, sink, stop);
  if (!servers) return;
  const progress = new EvalProgress(carried.length + todo.length, sink, undefined, { finished: carried.length, passed: carried.filter((verdict) => verdict.passed).length });
  try {
    await runAll(arms, todo, servers.specs, jobs, stop, reach, (verdict, which) => {
      finished[which]!.set(`${verdict.task}#${verdict.seed}`, verdict);
      writeResults(arms[which]!, finished[which]!);
      progress.ran(verdict.passed);
    });
  } finally {
    await servers.stop();
  }
}

/** The llama-servers of the gguf: arms, for the runs owed; null when Ctrl-C came while a model loaded (nothing ran). */
async function serversFor(arms: ArmRun[], owed: number, jobs: number, sink: ProgressSink, stop: AbortSignal): Promise<ArmServers | null> {
  if (owed === 0) return { specs: arms.map((arm) => arm.manifest.model), stop: async () => {} };
  try {
    // A slot per run at once and no more: each slot holds a window of memory.
    return await startArmServers(arms, Math.min(jobs, owed), (line) => sink.write(`${line}\n`), stop);
  } catch (error) {
    if (stop.aborted) return null;
    throw error;
  }
}

/** The runs owed, `jobs` at once, each arm's against the model `specs` names for it; `landed` hears each verdict. */
async function runAll(arms: ArmRun[], todo: Array<{ which: number; task: Task; seed: number }>, specs: string[], jobs: number, stop: AbortSignal, reach: ServerReach, landed: (verdict: RunVerdict, which: number) => void): Promise<void> {
  await inParallel(
    todo,
    jobs,
    ({ which, task, seed }) => {
      const arm = arms[which]!;
      return runOne(task, seed, {
        model: specs[which]!,
        baseUrl: arm.manifest.base_url,
        reach,
        armConfig: arm.manifest.config,
        out: arm.folder,
        replies: arm.manifest.replay ? join(runFolder(arm.manifest.replay, task.name, seed), "replies.json") : undefined,
        allowExperiments: Boolean(arm.manifest.replay),
        signal: stop,
      });
    },
    (verdict, index) => {
      if (verdict) landed(verdict, todo[index]!.which); // stopped: nothing to keep
    },
    stop,
  );
}

/** results.json in the plan's order, whatever order the runs finished in. */
function writeResults(arm: ArmRun, finished: Map<string, RunVerdict>): void {
  const verdicts = arm.plan.flatMap(([task, seed]) => finished.get(`${task.name}#${seed}`) ?? []);
  writeJson(join(arm.folder, RESULTS), verdicts);
}

export function refuseFinished(folder: string): void {
  if (existsSync(join(folder, RESULTS)) || existsSync(join(folder, MANIFEST))) throw new UsageError(`${folder} already holds results; pass another --out, or --resume ${folder}`);
}

function readArmConfig(path: string): Record<string, unknown> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(resolve(path), "utf8"));
  } catch (error) {
    throw new UsageError(`--config ${path}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : `not valid JSON (${(error as Error).message})`}`);
  }
  // Checked whole before any run starts; each run checks it again merged with its workspace's own.
  parseWith(ConfigSchema, raw, `--config ${path}`);
  return raw as Record<string, unknown>;
}

/** Task workspaces given as folders, and acceptance tests, are copied beside the tasks, so a replay finds them. */
function copyTaskAssets(tasks: Task[], folder: string): void {
  for (const task of tasks) {
    const assets = [...(task.workspace === "toy" ? [] : [task.workspace]), ...task.pass.flatMap((criterion) => ("accept" in criterion ? [criterion.accept] : []))];
    for (const asset of assets) {
      const source = resolve(task.folder, asset);
      const target = resolve(folder, "tasks", asset);
      if (existsSync(source) && source !== target && !existsSync(target)) {
        mkdirSync(dirname(target), { recursive: true });
        cpSync(source, target, { recursive: true });
      }
    }
  }
}

export function stamp(): string {
  return new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "");
}
