import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import type { CliArgs } from "../cli/args.ts";
import { copyToyWorkspace } from "../cli/toy-workspace.ts";
import { openSession, startRun } from "../session/session.ts";
import { UsageError } from "../session/usage-error.ts";
import { DECISIONS, type AgentEvent, type Decision, type EventOf } from "../core/events.ts";
import { judge, type CriterionResult } from "./judge.ts";
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
  tokens: number;
  seconds: number;
  refusals: Record<Exclude<Decision, "allowed">, number>;
  run_id: string;
}

export interface EvalRunOptions {
  /** The model spec; `scripted:DIR` plays DIR/<task>.json for each task. */
  model: string;
  baseUrl?: string;
  config?: string;
  /** Replay: play these recorded replies instead of asking the model. */
  replies?: string;
  /** Where runs/<task>/seed-<n>/ goes. */
  out: string;
  allowExperiments?: boolean;
}

/** The folder a run's files go to. */
export function runFolder(out: string, task: string, seed: number): string {
  return join(out, "runs", task, `seed-${seed}`);
}

/**
 * Runs one task with one seed on a fresh copy of its workspace, headless (edits are allowed: the
 * copy is thrown away), and records the replies, the events and the verdict.
 */
export async function runOne(task: Task, seed: number, options: EvalRunOptions): Promise<RunVerdict> {
  const folder = runFolder(options.out, task.name, seed);
  mkdirSync(folder, { recursive: true });
  const holder = mkdtempSync(join(tmpdir(), "glassbox-eval-"));
  try {
    const root = prepareWorkspace(task, holder);
    const canary = task.poisoned ? `CANARY-${crypto.randomUUID()}` : null;
    if (canary) poison(root, canary);
    const args = evalArgs(task, root, folder, options);
    const started = performance.now();
    const session = openSession(args, undefined, undefined, { seed, allowExperiments: options.allowExperiments, limits: task.limits });
    const run = startRun(session, task.prompt);
    const events: AgentEvent[] = [];
    for await (const event of run.events) events.push(event);
    const seconds = (performance.now() - started) / 1000;
    copyFileSync(run.logPath, join(folder, "events.jsonl"));
    const criteria = await judge(task.pass, events, root, session.config.checks, canary);
    const stop = events.findLast((event): event is EventOf<"stop"> => event.kind === "stop")!;
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
      seconds: Math.round(seconds * 1000) / 1000,
      refusals,
      run_id: run.runId,
    };
    writeFileSync(join(folder, "verdict.json"), JSON.stringify(verdict, null, 2) + "\n");
    return verdict;
  } finally {
    rmSync(holder, { recursive: true, force: true });
  }
}

function prepareWorkspace(task: Task, holder: string): string {
  if (task.workspace === "toy") return copyToyWorkspace(holder);
  const source = isAbsolute(task.workspace) ? task.workspace : join(task.folder, task.workspace);
  if (!existsSync(source) || !statSync(source).isDirectory()) throw new UsageError(`task ${task.name}: workspace ${task.workspace} is not a folder`);
  const root = join(holder, "workspace");
  cpSync(source, root, { recursive: true, filter: (path) => !path.includes(`${join(source, ".glassbox")}`) });
  return root;
}

function evalArgs(task: Task, root: string, folder: string, options: EvalRunOptions): CliArgs {
  const spec = options.replies ? `scripted:${options.replies}` : scriptedFolder(options.model, task.name);
  return {
    command: "run",
    task: task.prompt,
    model: spec,
    baseUrl: options.baseUrl,
    workspace: root,
    config: options.config,
    allow: ["write_file", "edit_file"],
    deny: [],
    limits: {},
    json: true,
    record: join(folder, "replies.json"),
    execute: true,
    offerTools: true,
    demo: false,
    auditMode: null,
    strictPrompt: false,
    showPrompt: false,
    resume: false,
    dryRun: false,
    force: false,
    continue: false,
    help: false,
    version: false,
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
