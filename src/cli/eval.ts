import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { CliArgs } from "./args.ts";
import { UsageError } from "../session/usage-error.ts";
import { loadTasks, type Task } from "../eval/task.ts";
import { runFolder, runOne, type EvalRunOptions, type RunVerdict } from "../eval/runner.ts";
import { compareTable, resultsTable } from "../eval/report.ts";

const RESULTS = "results.json";

/**
 * `glassbox eval`: each task per seed on a fresh workspace copy, every run recorded under the
 * output folder (replies, events, verdict) and results.json; a table per task at the end.
 * `--replay RUNS_DIR` feeds the recorded replies back through the current harness instead.
 */
export async function evaluate(args: CliArgs, out: (line: string) => void = (line) => console.log(line), progress: (line: string) => void = defaultProgress): Promise<number> {
  const replay = args.replay ? resolve(args.replay) : null;
  if (!replay && !args.tasks) throw new UsageError("eval needs --tasks DIR (or --replay RUNS_DIR)");
  if (!replay && !args.model) throw new UsageError("eval needs --model SPEC (scripted:DIR plays DIR/<task>.json per task)");
  const outDir = resolve(args.out ?? (replay ? `${replay}-replay-${stamp()}` : join("eval-results", stamp())));
  if (existsSync(join(outDir, RESULTS))) throw new UsageError(`${outDir} already holds results; pass another --out`);
  const tasks = loadTasks(replay ? join(replay, "tasks") : resolve(args.tasks!));
  const recorded = replay ? readResults(replay) : null;
  const plan: Array<[Task, number]> = recorded
    ? recorded.map((verdict) => [tasks.find((task) => task.name === verdict.task) ?? missing(verdict.task), verdict.seed])
    : tasks.flatMap((task) => (args.seeds ?? [1]).map((seed) => [task, seed] as [Task, number]));
  // The tasks travel with the results, so a replay needs nothing but the folder.
  mkdirSync(join(outDir, "tasks"), { recursive: true });
  for (const task of tasks) writeFileSync(join(outDir, "tasks", `${task.name}.json`), JSON.stringify({ ...task, folder: undefined }, null, 2) + "\n");
  copyWorkspaces(tasks, outDir);

  const verdicts: RunVerdict[] = [];
  for (const [index, [task, seed]] of plan.entries()) {
    progress(bar(index, plan.length, `${task.name} seed ${seed}`));
    const options: EvalRunOptions = {
      model: args.model ?? "",
      baseUrl: args.baseUrl,
      config: args.config ? resolve(args.config) : undefined,
      out: outDir,
      replies: replay ? join(runFolder(replay, task.name, seed), "replies.json") : undefined,
      allowExperiments: replay !== null,
    };
    verdicts.push(await runOne(task, seed, options));
    writeFileSync(join(outDir, RESULTS), JSON.stringify(verdicts, null, 2) + "\n");
  }
  progress(bar(plan.length, plan.length, "done"));
  out(`${replay ? "replayed" : "ran"} ${verdicts.length} run(s); results in ${outDir}`);
  for (const line of resultsTable(verdicts)) out(line);
  return 0;
}

/** `glassbox compare A B`: paired outcomes per task and seed, exact McNemar p-values, cost side by side. */
export function compare(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): number {
  const [a, b] = args.paths!.map((path) => readResults(resolve(path)));
  for (const line of compareTable(a!, b!)) out(line);
  return 0;
}

function readResults(folder: string): RunVerdict[] {
  const path = join(folder, RESULTS);
  if (!existsSync(path)) throw new UsageError(`${folder} has no ${RESULTS}: is it the output folder of glassbox eval?`);
  return JSON.parse(readFileSync(path, "utf8")) as RunVerdict[];
}

/** Task workspaces given as folders are copied beside the tasks, so a replay finds them. */
function copyWorkspaces(tasks: Task[], outDir: string): void {
  for (const task of tasks) {
    if (task.workspace === "toy") continue;
    const source = resolve(task.folder, task.workspace);
    const target = join(outDir, "tasks", task.workspace);
    if (existsSync(source) && source !== target) cpSync(source, target, { recursive: true });
  }
}

function missing(task: string): never {
  throw new UsageError(`the recorded results name task ${task}, but its task file is not in the results' tasks/ folder`);
}

function stamp(): string {
  return new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "");
}

function bar(done: number, total: number, label: string): string {
  const width = 24;
  const filled = Math.round((done / Math.max(1, total)) * width);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ${label}`;
}

function defaultProgress(line: string): void {
  // On a terminal the bar redraws in place; in a log, one line each.
  if (process.stderr.isTTY) process.stderr.write(`\r\u001b[2K${line}`), line.includes("done") && process.stderr.write("\n");
  else process.stderr.write(`${line}\n`);
}

