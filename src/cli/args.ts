import { parseArgs } from "node:util";
import { LIMIT_NAMES, LimitOverridesSchema, type LimitOverrides } from "../core/limits.ts";
import { parseWith } from "../session/config.ts";
import { UsageError } from "../session/usage-error.ts";

/** Options shared by the TUI and `run` (CONTRACT.md). */
const OPTIONS = {
  model: { type: "string" },
  "base-url": { type: "string" },
  workspace: { type: "string" },
  config: { type: "string" },
  allow: { type: "string", multiple: true },
  deny: { type: "string", multiple: true },
  limit: { type: "string", multiple: true },
  json: { type: "boolean" },
  record: { type: "string" },
  "no-execute": { type: "boolean" },
  "no-tools": { type: "boolean" },
  demo: { type: "boolean" },
  check: { type: "boolean" },
  "write-lock": { type: "boolean" },
  print: { type: "boolean" },
  "strict-prompt": { type: "boolean" },
  "show-prompt": { type: "boolean" },
  resume: { type: "boolean" },
  tasks: { type: "string" },
  seeds: { type: "string" },
  replay: { type: "string" },
  out: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

export interface CliArgs {
  command: "tui" | "run" | "audit" | "wire" | "doctor" | "eval" | "compare";
  task: string | null;
  model?: string;
  baseUrl?: string;
  workspace?: string;
  config?: string;
  allow: string[];
  deny: string[];
  limits: LimitOverrides;
  json: boolean;
  record?: string;
  execute: boolean;
  offerTools: boolean;
  demo: boolean;
  /** audit: --check, --write-lock or --print (null: the table). */
  auditMode: "check" | "write-lock" | "print" | null;
  /** run: prompt drift from prompts.lock is an error (exit 2), not a warning. */
  strictPrompt: boolean;
  /** run: print the assembled system prompt, layer boundaries marked, before the run. */
  showPrompt: boolean;
  /** Start with the todo list saved in .glassbox/progress.json. */
  resume: boolean;
  /** eval: the task folder, the seeds, a recorded results folder to replay, the output folder. */
  tasks?: string;
  seeds?: number[];
  replay?: string;
  out?: string;
  /** compare: the two results folders. */
  paths?: string[];
  help: boolean;
  version: boolean;
}

const COMMANDS = ["run", "audit", "wire", "doctor", "eval", "compare"] as const;

export function parseCli(argv: string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]}; see glassbox --help`);
  }
  const { values, positionals } = parsed;
  const first = positionals[0];
  const command = (COMMANDS as readonly string[]).includes(first ?? "") ? (first as CliArgs["command"]) : "tui";
  const rest = command === "tui" ? positionals : positionals.slice(1);
  if (command === "tui" && rest.length) throw new UsageError(`unknown command "${rest[0]}"; commands are: ${COMMANDS.join(", ")} (see glassbox --help)`);
  if (command === "compare" && rest.length !== 2) throw new UsageError("compare needs two results folders: glassbox compare RESULTS_A RESULTS_B");
  if (command !== "compare" && rest.length > 1) throw new UsageError(`expected one task in quotes, got ${rest.length} words; quote the task: glassbox run "fix the tests"`);
  return {
    command,
    task: command === "compare" ? null : (rest[0] ?? null),
    model: values.model,
    baseUrl: values["base-url"],
    workspace: values.workspace,
    config: values.config,
    allow: values.allow ?? [],
    deny: values.deny ?? [],
    limits: parseLimitOptions(values.limit ?? []),
    json: values.json ?? false,
    record: values.record,
    execute: !values["no-execute"],
    offerTools: !values["no-tools"],
    demo: values.demo ?? false,
    auditMode: auditMode(values),
    strictPrompt: values["strict-prompt"] ?? false,
    showPrompt: values["show-prompt"] ?? false,
    resume: values.resume ?? false,
    tasks: values.tasks,
    seeds: values.seeds === undefined ? undefined : parseSeeds(values.seeds),
    replay: values.replay,
    out: values.out,
    paths: command === "compare" ? rest : undefined,
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

/** `--seeds 1..10` or `--seeds 1,4,9`. */
function parseSeeds(text: string): number[] {
  const range = /^(\d+)\.\.(\d+)$/.exec(text);
  const seeds = range ? Array.from({ length: Math.max(0, Number(range[2]) - Number(range[1]) + 1) }, (_, i) => Number(range[1]) + i) : text.split(",").map(Number);
  if (seeds.length === 0 || seeds.some((seed) => !Number.isInteger(seed) || seed < 0)) throw new UsageError(`--seeds "${text}" is not FIRST..LAST or a list like 1,2,3 of whole numbers`);
  return seeds;
}

function auditMode(values: { check?: boolean; "write-lock"?: boolean; print?: boolean }): CliArgs["auditMode"] {
  const chosen = (["check", "write-lock", "print"] as const).filter((mode) => values[mode]);
  if (chosen.length > 1) throw new UsageError(`audit takes one of --check, --write-lock, --print, not ${chosen.map((mode) => `--${mode}`).join(" and ")}`);
  return chosen[0] ?? null;
}

/** `--limit NAME=VALUE`, repeatable; validated by the same schema as the config's limits. */
function parseLimitOptions(items: string[]): LimitOverrides {
  const raw: Record<string, number> = {};
  for (const item of items) {
    const match = /^([a-z_]+)=(.+)$/.exec(item);
    if (!match) throw new UsageError(`--limit "${item}" is not NAME=VALUE (names: ${LIMIT_NAMES.join(", ")})`);
    const [, name, value] = match;
    if (!(LIMIT_NAMES as string[]).includes(name!)) throw new UsageError(`--limit: unknown limit "${name}"; limits are: ${LIMIT_NAMES.join(", ")}`);
    const number = Number(value);
    if (!Number.isFinite(number)) throw new UsageError(`--limit ${name}: "${value}" is not a number`);
    raw[name!] = number;
  }
  return parseWith(LimitOverridesSchema, raw, "--limit");
}

export const HELP = `glassbox — a local-model coding agent that stands between the model and the disk

Usage:
  glassbox [options]               interactive split-pane TUI
  glassbox --demo                  the built-in scripted model on a fresh copy of the toy workspace
  glassbox run [options] "TASK"    headless: one task, events on stdout, exit code = outcome
  glassbox wire [--workspace DIR]  one line per logged model request / response
  glassbox doctor [--model SPEC]   probe the model server: reachable, model present, context size
  glassbox eval --tasks DIR --model SPEC [--seeds 1..10] [--config A.json] [--out DIR]
                                   run a task set per seed, record everything, print a table
  glassbox eval --replay RUNS_DIR [--config B.json] [--out DIR]
                                   feed recorded replies back through the current harness
  glassbox compare RESULTS_A RESULTS_B
                                   paired outcomes per task and seed, McNemar p-values, cost
  glassbox audit [--workspace DIR] [--check | --write-lock | --print]
                                   prompt-layer inventory; --check fails on drift from prompts.lock
  glassbox --help | --version

Options (TUI and run):
  --model SPEC        scripted:FILE, llamacpp[:BASE_URL], ollama:MODEL
                      (default: config, else llamacpp:http://127.0.0.1:8080)
  --base-url URL      server address for ollama: or llamacpp
  --workspace DIR     the only folder the file tools may touch (default: current directory)
  --config FILE       JSON config (default: glassbox.json in the workspace, if present)
  --allow RULE        approve matching calls without asking; RULE is TOOL or TOOL:GLOB (repeatable)
  --deny RULE         refuse matching calls; deny beats allow (repeatable)
  --limit NAME=VALUE  override one limit (repeatable): ${LIMIT_NAMES.join(", ")}
  --json              (run) events as JSON Lines on stdout
  --record FILE       write every model reply in the scripted-model format
  --no-execute        tools are offered, but every call is answered "not executed"
  --no-tools          send no tool declarations at all
  --show-prompt       (run) print the assembled system prompt, layer boundaries marked
  --strict-prompt     (run) prompt layers that drifted from prompts.lock are an error (exit 2)
  --resume            start with the todo list saved in .glassbox/progress.json

Exit codes of run: 0 completed, 1 any other stop status, 2 usage or config error.
`;
