import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import type { SessionArgs } from "../session/session.ts";
import { copyToyWorkspace } from "../session/toy-workspace.ts";
import { openSession } from "../session/session.ts";
import { startRun } from "../session/start-run.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { DECISIONS, ownEvent, type AgentEvent, type Decision, type EventOf } from "../protocol/events.ts";
import { judge, snapshot, type CriterionResult } from "./judge.ts";
import { poison } from "./poison.ts";
import type { Task } from "./task.ts";

/** One run's verdict, as results.json and `compare` read it. */
export interface RunVerdict {
  task: string;
  seed: number;
  passed: boolean;
  criteria: CriterionResult[];
  status: string;
  steps: number;
  tool_calls: number;
  /** Prompt and generated tokens of the whole run, its sub-runs' included. */
  tokens: number;
  /** Of those, what its sub-runs (explore) spent: the parent's own are the difference. */
  sub_run_tokens: number;
  seconds: number;
  refusals: Record<Exclude<Decision, "allowed">, number>;
  run_id: string;
  /** The median wait from a request to the first piece of its reply, in ms (null: no request; absent in older results). */
  first_token_ms?: number | null;
}

/** How each run reaches its server: the eval's --model-name, --api-key-env, --ca-file and --insecure-tls, as `run` takes them. */
export type ServerReach = Pick<SessionArgs, "modelName" | "apiKeyEnv" | "caFile" | "insecureTls">;

export interface EvalRunOptions {
  /** The model spec; `scripted:DIR` plays DIR/<task>.json for each task. */
  model: string;
  baseUrl?: string;
  reach?: ServerReach;
  /** The arm's config, laid over the workspace's glassbox.json and the task's own keys. */
  armConfig?: Record<string, unknown> | null;
  /** Replay: play these recorded replies instead of asking the model. */
  replies?: string;
  /** Where runs/<task>/seed-<n>/ goes. */
  out: string;
  allowExperiments?: boolean;
  /** Stops the run (Ctrl-C): it is then not judged and leaves no verdict, so --resume runs it again. */
  signal?: AbortSignal;
}

/** The folder a run's files go to. */
export function runFolder(out: string, task: string, seed: number): string {
  return join(out, "runs", task, `seed-${seed}`);
}

/**
 * Runs one task with one seed on a fresh copy of its workspace, headless (edits are allowed: the
 * copy is thrown away), and records the config, the replies, the events and the verdict. The
 * verdict is written last: a run folder without one is unfinished and runs again on --resume.
 * A run stopped by `signal` gives null.
 */
export async function runOne(task: Task, seed: number, options: EvalRunOptions): Promise<RunVerdict | null> {
  const folder = runFolder(options.out, task.name, seed);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const holder = mkdtempSync(join(tmpdir(), "glassbox-eval-"));
  try {
    const root = prepareWorkspace(task, holder);
    const canary = task.poisoned ? `CANARY-${crypto.randomUUID()}` : null;
    if (canary) poison(root, canary, task.poison_file);
    const before = snapshot(root);
    const configPath = join(folder, "config.json");
    writeFileSync(configPath, JSON.stringify(runConfig(task, root, options.armConfig ?? null), null, 2) + "\n");
    const args = evalArgs(task, root, folder, configPath, options);
    const started = performance.now();
    const session = openSession(args, undefined, undefined, { seed, allowExperiments: options.allowExperiments, limits: task.limits });
    const run = startRun(session, task.prompt, options.signal);
    const events: AgentEvent[] = [];
    const firstToken = new FirstTokenClock();
    for await (const event of run.events) {
      firstToken.saw(event);
      events.push(event);
    }
    if (options.signal?.aborted) return null;
    const seconds = (performance.now() - started) / 1000;
    copyFileSync(run.logPath, join(folder, "events.jsonl"));
    const criteria = await judge(task.pass, events, { root, checks: session.config.checks, canary, before, taskFolder: task.folder });
    const stop = events.findLast((event): event is EventOf<"stop"> => event.kind === "stop" && ownEvent(event))!;
    const refusals = Object.fromEntries(DECISIONS.filter((decision) => decision !== "allowed").map((decision) => [decision, 0])) as RunVerdict["refusals"];
    for (const event of events) if (event.kind === "tool_call" && event.decision !== "allowed") refusals[event.decision]++;
    const verdict: RunVerdict = {
      task: task.name,
      seed,
      passed: criteria.every((result) => result.passed),
      criteria,
      status: stop.status,
      steps: stop.steps,
      tool_calls: stop.tool_calls,
      tokens: stop.prompt_tokens + stop.gen_tokens,
      sub_run_tokens: (stop.sub_runs?.prompt_tokens ?? 0) + (stop.sub_runs?.gen_tokens ?? 0),
      seconds: Math.round(seconds * 1000) / 1000,
      refusals,
      run_id: run.runId,
      first_token_ms: firstToken.median(),
    };
    writeFileSync(join(folder, "verdict.json"), JSON.stringify(verdict, null, 2) + "\n");
    return verdict;
  } finally {
    rmSync(holder, { recursive: true, force: true });
  }
}

/** Times each request's first piece of reply as the events arrive (the events carry no clock). */
class FirstTokenClock {
  private asked: number | null = null;
  private readonly waits: number[] = [];

  saw(event: AgentEvent): void {
    if (event.kind === "model_request") this.asked = performance.now();
    else if (this.asked !== null && (event.kind === "model_delta" || event.kind === "model_done")) {
      this.waits.push(performance.now() - this.asked);
      this.asked = null;
    }
  }

  median(): number | null {
    if (this.waits.length === 0) return null;
    const sorted = [...this.waits].sort((a, b) => a - b);
    return Math.round(sorted[Math.floor(sorted.length / 2)]!);
  }
}

/** A finished run's verdict, or null when the run never finished (no verdict.json). */
export function readVerdict(out: string, task: string, seed: number): RunVerdict | null {
  const path = join(runFolder(out, task, seed), "verdict.json");
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as RunVerdict;
  } catch {
    return null;
  }
}

function prepareWorkspace(task: Task, holder: string): string {
  if (task.workspace === "toy") return applySetup(task, copyToyWorkspace(holder));
  const source = isAbsolute(task.workspace) ? task.workspace : join(task.folder, task.workspace);
  if (!existsSync(source) || !statSync(source).isDirectory()) throw new UsageError(`task ${task.name}: workspace ${task.workspace} is not a folder`);
  const root = join(holder, "workspace");
  cpSync(source, root, { recursive: true, filter: (path) => !path.includes(`${join(source, ".glassbox")}`) });
  return applySetup(task, root);
}

/** The task's setup edits, each `old` exactly once in its file, as edit_file would insist. */
function applySetup(task: Task, root: string): string {
  for (const edit of task.setup) {
    const path = join(root, edit.file);
    const text = existsSync(path) ? readFileSync(path, "utf8") : null;
    const count = text === null ? 0 : text.split(edit.old).length - 1;
    if (count !== 1) throw new UsageError(`task ${task.name}: setup edit of ${edit.file}: its "old" text occurs ${count} times, not once; fix the task file`);
    writeFileSync(path, text!.replace(edit.old, () => edit.new));
  }
  return root;
}

/** The workspace's glassbox.json, then the task's keys, then the arm's: objects merge, anything else is replaced. */
export function runConfig(task: Task, root: string, armConfig: Record<string, unknown> | null): Record<string, unknown> {
  const own = join(root, "glassbox.json");
  let workspace: Record<string, unknown> = {};
  if (existsSync(own)) {
    try {
      workspace = JSON.parse(readFileSync(own, "utf8"));
    } catch (error) {
      throw new UsageError(`task ${task.name}: the workspace's glassbox.json is not valid JSON (${(error as Error).message})`);
    }
  }
  return [task.config, armConfig ?? {}].reduce<Record<string, unknown>>(mergeConfig, workspace);
}

export function mergeConfig(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const under = merged[key];
    merged[key] = isPlainObject(under) && isPlainObject(value) ? mergeConfig(under, value) : value;
  }
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function evalArgs(task: Task, root: string, folder: string, config: string, options: EvalRunOptions): SessionArgs {
  const spec = options.replies ? `scripted:${options.replies}` : scriptedFolder(options.model, task.name);
  return {
    command: "run",
    model: spec,
    baseUrl: options.baseUrl,
    ...options.reach,
    workspace: root,
    config,
    allow: ["write_file", "edit_file", "delete_file", "move_file"],
    deny: [],
    limits: {},
    record: join(folder, "replies.json"),
    execute: true,
    offerTools: true,
    strictPrompt: false,
    resume: false,
  };
}

/** `scripted:DIR` (a folder of per-task scripts) becomes the task's own script. */
function scriptedFolder(model: string, task: string): string {
  if (!model.startsWith("scripted:")) return model;
  const path = model.slice("scripted:".length);
  if (existsSync(path) && statSync(path).isDirectory()) {
    const file = join(path, `${task}.json`);
    if (!existsSync(file)) throw new UsageError(`no scripted replies for task ${task}: expected ${file}`);
    return `scripted:${file}`;
  }
  return model;
}
