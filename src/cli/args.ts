import { parseArgs } from "node:util";
import { LIMIT_NAMES, LimitOverridesSchema, type LimitOverrides } from "../protocol/limits.ts";
import type { SessionArgs } from "../session/session.ts";
import { parseWith } from "../protocol/parse-with.ts";
import { UsageError } from "../protocol/usage-error.ts";

/** Options shared by the TUI and `run` (CONTRACT.md). */
const OPTIONS = {
  model: { type: "string" },
  "model-name": { type: "string" },
  "base-url": { type: "string" },
  "api-key-env": { type: "string" },
  "ca-file": { type: "string" },
  "insecure-tls": { type: "boolean" },
  workspace: { type: "string" },
  config: { type: "string", multiple: true },
  allow: { type: "string", multiple: true },
  deny: { type: "string", multiple: true },
  limit: { type: "string", multiple: true },
  json: { type: "boolean" },
  record: { type: "string" },
  "no-execute": { type: "boolean" },
  "no-tools": { type: "boolean" },
  "text-tool-calls": { type: "boolean" },
  "no-text-tool-calls": { type: "boolean" },
  demo: { type: "boolean" },
  check: { type: "boolean" },
  "write-lock": { type: "boolean" },
  print: { type: "boolean" },
  "strict-prompt": { type: "boolean" },
  "show-prompt": { type: "boolean" },
  resume: { type: "boolean" },
  run: { type: "string" },
  tokens: { type: "string" },
  focus: { type: "string", multiple: true },
  continue: { type: "boolean" },
  session: { type: "string" },
  tasks: { type: "string" },
  seeds: { type: "string" },
  replay: { type: "string" },
  out: { type: "string" },
  "dry-run": { type: "boolean" },
  force: { type: "boolean" },
  jobs: { type: "string" },
  shard: { type: "string" },
  quick: { type: "boolean" },
  show: { type: "boolean" },
  "no-profile": { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

/** The command line: what a session is opened from (SessionArgs), plus what the commands read. */
export interface CliArgs extends SessionArgs {
  command: "tui" | (typeof COMMANDS)[number];
  task: string | null;
  json: boolean;
  demo: boolean;
  /** audit: --check, --write-lock or --print (null: the table). */
  auditMode: "check" | "write-lock" | "print" | null;
  /** run: prompt drift from prompts.lock is an error (exit 2), not a warning. */
  strictPrompt: boolean;
  /** run: print the assembled system prompt, layer boundaries marked, before the run. */
  showPrompt: boolean;
  /** Start with the todo list saved in .glassbox/progress.json. */
  resume: boolean;
  /** TUI and run: continue the latest saved session (--continue) or a given one (--session ID). */
  continue: boolean;
  session?: string;
  /** eval: the task folder, the seeds, a recorded results folder to replay, the output folder. */
  tasks?: string;
  seeds?: number[];
  replay?: string;
  out?: string;
  /** eval: one arm per --config (config is the first of them). */
  configs: string[];
  /** eval: runs at once. */
  jobs: number;
  /** eval: run only part K of N of the task × seed list. */
  shard: { index: number; count: number } | null;
  /** eval --resume OUT (and tune's): the interrupted eval to finish. */
  resumeEval?: string;
  /** tune: the short battery (names traits; too few pairs to change a setting). */
  quick: boolean;
  /** tune --show: print the model's profile. */
  show: boolean;
  /** compare and report: the results folders. */
  paths?: string[];
  /** init, undo: say what would be done, change nothing. */
  dryRun: boolean;
  /** init: replace an existing glassbox.json; undo: restore files edited since glassbox wrote them too (what they held is kept). */
  force: boolean;
  /** undo: which run (default: the latest that changed files). */
  runId?: string;
  /** map: the budget (default: the config's) and the files or symbols to weight. */
  mapTokens?: number;
  focus: string[];
  /** mcp: list, trust NAME or forget NAME. */
  mcp?: { action: "list" | "trust" | "forget"; server?: string };
  help: boolean;
  version: boolean;
}

export const COMMANDS = ["run", "init", "audit", "wire", "doctor", "eval", "compare", "report", "undo", "mcp", "sessions", "map", "tune"] as const;

/** For eval and tune, `--resume` names the output folder to finish; elsewhere it is the todo-list flag. */
const EVAL_OPTIONS = { ...OPTIONS, resume: { type: "string" } } as const;

export function parseCli(argv: string[]): CliArgs {
  let parsed;
  try {
    const lenient = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: false });
    const isEval = lenient.positionals[0] === "eval" || lenient.positionals[0] === "tune";
    parsed = parseArgs({ args: argv, options: isEval ? EVAL_OPTIONS : OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]}; see glassbox --help`);
  }
  const { values, positionals } = parsed;
  const first = positionals[0];
  const command = (COMMANDS as readonly string[]).includes(first ?? "") ? (first as CliArgs["command"]) : "tui";
  const rest = command === "tui" ? positionals : positionals.slice(1);
  if (command === "tui" && rest.length) throw new UsageError(`unknown command "${rest[0]}"; commands are: ${COMMANDS.join(", ")} (see glassbox --help)`);
  // `glassbox COMMAND --help` shows the usage, however many arguments the command got.
  const configs = values.config ?? [];
  if (!values.help) checkArguments(command, rest, configs);
  return {
    command,
    task: takesFolders(command) || command === "mcp" ? null : (rest[0] ?? null),
    model: values.model,
    modelName: values["model-name"],
    baseUrl: values["base-url"],
    apiKeyEnv: values["api-key-env"],
    caFile: values["ca-file"],
    insecureTls: values["insecure-tls"] ?? false,
    workspace: values.workspace,
    config: configs[0],
    configs,
    jobs: values.jobs === undefined ? 1 : parseJobs(values.jobs),
    shard: values.shard === undefined ? null : parseShard(values.shard),
    resumeEval: typeof values.resume === "string" ? values.resume : undefined,
    quick: values.quick ?? false,
    show: values.show ?? false,
    noProfile: values["no-profile"] ?? false,
    allow: values.allow ?? [],
    deny: values.deny ?? [],
    limits: parseLimitOptions(values.limit ?? []),
    json: values.json ?? false,
    record: values.record,
    execute: !values["no-execute"],
    offerTools: !values["no-tools"],
    textToolCalls: textToolCalls(values),
    demo: values.demo ?? false,
    auditMode: auditMode(values),
    strictPrompt: values["strict-prompt"] ?? false,
    showPrompt: values["show-prompt"] ?? false,
    resume: values.resume === true,
    continue: values.continue ?? false,
    session: values.session,
    tasks: values.tasks,
    seeds: values.seeds === undefined ? undefined : parseSeeds(values.seeds),
    replay: values.replay,
    out: values.out,
    paths: takesFolders(command) ? rest : undefined,
    runId: values.run,
    mapTokens: values.tokens === undefined ? undefined : parseTokens(values.tokens),
    focus: values.focus ?? [],
    dryRun: values["dry-run"] ?? false,
    force: values.force ?? false,
    mcp: command === "mcp" && !values.help ? parseMcpCommand(rest) : undefined,
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

const takesFolders = (command: CliArgs["command"]) => command === "compare" || command === "report";

function checkArguments(command: CliArgs["command"], rest: string[], configs: string[]): void {
  if (command === "compare" && rest.length < 1) throw new UsageError("compare needs results folders of two or more arms: glassbox compare RESULTS_A RESULTS_B…");
  if (command === "report" && rest.length < 1) throw new UsageError("report needs one or more results folders: glassbox report RESULTS… --out report.html");
  if (command === "undo" && rest.length) throw new UsageError(`undo takes no arguments, got "${rest[0]}"; pick a run with --run RUN_ID`);
  if (command === "tune" && rest.length) throw new UsageError(`tune takes no arguments, got "${rest[0]}"; name the model with --model SPEC`);
  if (command === "init" && rest.length) throw new UsageError(`init takes no arguments, got "${rest[0]}"; point it at a folder with --workspace DIR`);
  if (command !== "eval" && configs.length > 1) throw new UsageError(`--config was given ${configs.length} times; only eval takes several (one arm each)`);
  if (!takesFolders(command) && command !== "mcp" && rest.length > 1) throw new UsageError(`expected one task in quotes, got ${rest.length} words; quote the task: glassbox run "fix the tests"`);
}

function parseMcpCommand(rest: string[]): NonNullable<CliArgs["mcp"]> {
  const [action, server, ...extra] = rest;
  if (action === "list" && server === undefined) return { action };
  if ((action === "trust" || action === "forget") && server && !extra.length) return { action, server };
  throw new UsageError("mcp takes: glassbox mcp list | glassbox mcp trust NAME | glassbox mcp forget NAME");
}

function parseTokens(text: string): number {
  const tokens = Number(text);
  if (!/^\d+$/.test(text) || tokens < 64) throw new UsageError(`--tokens "${text}" is not a whole number of at least 64 (the map's budget in tokens)`);
  return tokens;
}

function parseJobs(text: string): number {
  const jobs = Number(text);
  if (!/^\d+$/.test(text) || jobs < 1) throw new UsageError(`--jobs "${text}" is not a whole number of at least 1 (runs at once)`);
  return jobs;
}

/** `--shard K/N`: the K-th of N parts, 1-based. */
function parseShard(text: string): { index: number; count: number } {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count) throw new UsageError(`--shard "${text}" is not K/N with 1 <= K <= N (for example --shard 2/4)`);
  return { index, count };
}

/** `--seeds 1..10` or `--seeds 1,4,9`. */
function parseSeeds(text: string): number[] {
  const range = /^(\d+)\.\.(\d+)$/.exec(text);
  const seeds = range ? Array.from({ length: Math.max(0, Number(range[2]) - Number(range[1]) + 1) }, (_, i) => Number(range[1]) + i) : text.split(",").map(Number);
  if (seeds.length === 0 || seeds.some((seed) => !Number.isInteger(seed) || seed < 0)) throw new UsageError(`--seeds "${text}" is not FIRST..LAST or a list like 1,2,3 of whole numbers`);
  return seeds;
}

/** --text-tool-calls / --no-text-tool-calls; neither: the config decides. */
function textToolCalls(values: { "text-tool-calls"?: boolean; "no-text-tool-calls"?: boolean }): boolean | undefined {
  if (values["text-tool-calls"] && values["no-text-tool-calls"]) throw new UsageError("--text-tool-calls and --no-text-tool-calls contradict each other; pass one");
  if (values["no-text-tool-calls"]) return false;
  return values["text-tool-calls"] ? true : undefined;
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
