import { GgufModel, type ServerStarted } from "../model/gguf-model.ts";
import { serverAccess, type AccessArgs } from "../model/server-access.ts";
import { ModelChoiceError, OpenAiModel } from "../model/openai.ts";
import { ServerStartError, type LoadProgress } from "../model/llama-server-process.ts";
import { statSync } from "node:fs";
import { relative, resolve } from "node:path";
import { Checkpoint, type Approver } from "../core/checkpoint.ts";
import { resolveLimits, type LimitOverrides, type Limits } from "../protocol/limits.ts";
import { Policy, parseRule } from "../core/policy.ts";
import { systemClock, type Clock } from "../protocol/clock.ts";
import type { AgentEvent } from "../protocol/events.ts";
import { Workspace } from "../files/workspace.ts";
import { TOOL_NAMES, defaultTools } from "../tools/index.ts";
import { mapTokens } from "../map/map-config.ts";
import { windowOf } from "../model/options.ts";
import { RecordingModel } from "../model/recorder.ts";
import { TextCallModel } from "../model/text-call-model.ts";
import { ToolProtocolModel } from "../model/tool-protocol-model.ts";
import { ModelError, type ModelClient } from "../protocol/model.ts";
import { collectLayers, LayerError, type PromptLayer } from "../prompt/layers.ts";
import { compareToLock, formatFinding, readLock } from "../prompt/lock.ts";
import { WireLog, wireLogPath } from "../trace/wire-log.ts";
import { readProgress, resumeNote } from "../trace/progress.ts";
import { readConfig, type Config, type ConfigFile } from "./config.ts";
import { profileFor, type AppliedProfile, type FoundProfile, type ProfileArgs } from "./profile.ts";
import { createModel, parseModelSpec } from "../model/model-spec.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { DEMO_MODEL, demoModel } from "../model/demo-model.ts";
import { chooseSandbox } from "../sandbox/detect.ts";
import type { SandboxInfo } from "../sandbox/sandbox.ts";
import { collectServers } from "../mcp/config.ts";
import { McpHub, type HubQuestions } from "../mcp/hub.ts";

/** Milliseconds between the demo model's words in the TUI: about the pace of a small local model. */
const DEMO_PACE_MS = 25;

/** Everything a run needs, built from the command line and the config; any mistake is a UsageError. */
export interface Session {
  workspace: Workspace;
  config: Config;
  limits: Limits;
  model: ModelClient;
  /** The spec the model came from (--model, the config, or a pick); null until one is named. */
  spec: string | null;
  /**
   * Switches the session to another model (the TUI's picker, discovery); the next run uses it,
   * with that model's profile (useModel finds it): the config, limits and tools it sets.
   */
  chooseModel(spec: string, modelName: string | undefined, profile: FoundProfile | null): void;
  /** The llama-server glassbox runs for a gguf: model (null for every other model); started by startOwnServer. */
  readonly ownServer: GgufModel | null;
  /** An openai: model, whose server is asked which model to use before the first run (prepareModel). */
  readonly served: OpenAiModel | null;
  /** --insecure-tls: no server certificate is checked; said on the status line and at the start of `run` for as long as it is on. */
  readonly insecureTls: boolean;
  checkpoint: Checkpoint;
  offerTools: boolean;
  clock: Clock;
  /** The system prompt's layers, read once: every request of the session sends the same prefix. */
  layers: PromptLayer[];
  /** Findings against prompts.lock; null when the workspace has no lock. */
  drift: string[] | null;
  /** --resume: the saved plan, carried by the session's first message, then cleared. */
  resume: string | null;
  /** How checks are confined, said in run_start, the TUI badge and doctor. */
  sandbox: SandboxInfo;
  /** The MCP servers (started by connectServers, closed with the session). */
  mcp: McpHub;
  /** Events from outside a run (MCP servers starting, tools withdrawn), said with the next run event. */
  pending: AgentEvent[];
  /** The model profile this session applies (run_start, the status line); null: none (no profile, or --no-profile). */
  profile: AppliedProfile | null;
}

/** What a session is opened from: the command line's options (CliArgs fits), or eval's per-run copy of them. */
export interface SessionArgs extends AccessArgs {
  /** "tui" paces the demo model like a real one; anything else plays it at once. */
  command: string;
  model?: string;
  /** openai: the model's name on the server. */
  modelName?: string;
  baseUrl?: string;
  workspace?: string;
  config?: string;
  allow: string[];
  deny: string[];
  limits: LimitOverrides;
  record?: string;
  execute: boolean;
  /** --text-tool-calls (true) or --no-text-tool-calls (false); absent: the config's `text_tool_calls`. */
  textToolCalls?: boolean;
  offerTools: boolean;
  strictPrompt: boolean;
  resume: boolean;
  /** --no-profile: the model's profile (glassbox tune wrote it) is not applied. */
  noProfile?: boolean;
}

/** What `glassbox eval` sets beyond the command line: the seed of each run, whether experiments may run, the task's limits. */
export interface SessionTweaks {
  seed?: number;
  allowExperiments?: boolean;
  /** An eval task's own limits: under the config's and the command line's. */
  limits?: LimitOverrides;
  /** The model's profile (profileFor finds it): its settings go under glassbox.json and the command line. */
  profile?: FoundProfile | null;
}

export function openSession(args: SessionArgs, approver?: Approver, clock: Clock = systemClock, tweaks: SessionTweaks = {}): Session {
  const { workspace, file, configured } = openWorkspace(args, tweaks);
  const { config, limits, profile } = configured;
  const servers = collectServers(config.mcp_servers, file.source, workspace.root);
  // No spec: the caller finds one (discovery) before the first run.
  const spec = args.model ?? config.model ?? null;
  const models = new SessionModels(args, workspace.root, new WireLog(wireLogPath(workspace.root)));
  const model = spec === null ? NO_MODEL : models.modelFor(spec, config);
  const choice = sessionSandbox(config);
  // Without a sandbox nothing can hold the workspace read-only: read-only rules (the built-in git ones) ask instead.
  const policy = sessionPolicy(config, args, servers.map((server) => server.name), choice.sandbox.kind !== "none");
  // The tools and result cap a config sets: at the start, and again when another model's profile changes it.
  const toolsFor = ({ config: { checks, edit_checks, components, repo_map, model_options }, limits: { max_result_chars } }: Configured) => ({
    tools: args.offerTools ? defaultTools(checks, edit_checks, choice.sandbox, components, mapTokens(repo_map, windowOf(model_options))) : [],
    maxResultChars: components.observation_caps ? max_result_chars : Number.POSITIVE_INFINITY,
  });
  const pending: AgentEvent[] = [];
  const mcp = new McpHub(args.offerTools ? servers : [], workspace.root, safeLock(workspace.root), (event) => pending.push(event));
  const checkpoint = new Checkpoint({ moreTools: () => mcp.tools(), ...toolsFor(configured), workspace, clock, policy, approver, execute: args.execute });
  const layers = workspaceLayers(workspace.root);
  const drift = promptDrift(workspace.root, layers);
  // With MCP servers the layers are whole only once they run: connectServers checks then.
  if (args.strictPrompt && !mcp.servers.length) refuseDrift(drift);
  const session: Session = {
    workspace,
    config,
    limits,
    model,
    spec,
    chooseModel: (chosen, modelName, found) => {
      // Worked out before anything changes: a profile or model that cannot be used leaves the session as it was.
      const next = found?.path === session.profile?.path ? null : configure(file, args, tweaks, found);
      session.model = models.modelFor(chosen, next?.config ?? session.config, modelName);
      session.spec = chosen;
      if (!next) return;
      Object.assign(session, next);
      checkpoint.useTools(toolsFor(next));
    },
    get ownServer() {
      return models.ownServer;
    },
    get served() {
      return models.served;
    },
    insecureTls: args.insecureTls ?? false,
    checkpoint,
    offerTools: args.offerTools,
    clock,
    layers,
    drift,
    resume: args.resume ? resumeFrom(workspace.root, checkpoint) : null,
    sandbox: choice.info,
    mcp,
    pending,
    profile,
  };
  return session;
}

/** Switches the session to another model with that model's own profile, found as at start (none with --no-profile). */
export async function useModel(session: Session, args: ProfileArgs, spec: string, modelName?: string): Promise<void> {
  session.chooseModel(spec, modelName, await profileFor({ ...args, model: spec, modelName }));
}

/** The workspace folder, confined unless a replay's experiment says otherwise, its config file (read once) and what it configures under the profile. */
function openWorkspace(args: SessionArgs, tweaks: SessionTweaks): { workspace: Workspace; file: ConfigFile; configured: Configured } {
  const folder = resolve(args.workspace ?? ".");
  let isFolder = false;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isFolder) throw new UsageError(`workspace ${folder} is not a folder; pass --workspace DIR`);
  const file = readConfig(args.config, new Workspace(folder).root);
  const configured = configure(file, args, tweaks, tweaks.profile ?? null);
  const unconfined = configured.config.experiment?.disable_confinement ?? false;
  if (unconfined && !tweaks.allowExperiments) {
    throw new UsageError("experiment.disable_confinement is only for counterfactual replays (glassbox eval --replay); remove it from the config");
  }
  return { workspace: new Workspace(folder, !unconfined), file, configured };
}

/** What a session takes from its config under its model's profile; worked out again when a model with another profile is chosen. */
interface Configured {
  config: Config;
  limits: Limits;
  /** The profile's settings that took effect; null: none. */
  profile: AppliedProfile | null;
}

function configure(file: ConfigFile, args: SessionArgs, tweaks: SessionTweaks, found: FoundProfile | null): Configured {
  const under = found ? { settings: found.profile.settings, name: `the model profile ${found.path} (delete it, or run glassbox tune again; --no-profile runs without it)` } : undefined;
  const { config, applied } = file.under(under);
  if (tweaks.seed !== undefined) config.model_options.seed = tweaks.seed;
  const limits = resolveLimits(tweaks.limits ?? {}, config.limits, args.limits);
  return { config, limits, profile: found ? { path: found.path, settings: notOnCommandLine(applied, args) } : null };
}

/** A profile's settings the command line does not override (--text-tool-calls, --limit): the command line wins. */
function notOnCommandLine(applied: Record<string, unknown>, args: SessionArgs): Record<string, unknown> {
  const overridden = (path: string) => (path === "text_tool_calls" && args.textToolCalls !== undefined) || (path.startsWith("limits.") && path.slice("limits.".length) in args.limits);
  return Object.fromEntries(Object.entries(applied).filter(([path]) => !overridden(path)));
}

/** The approval rules of the config and the command line; a rule that names no tool is a usage error naming its flag. */
function sessionPolicy(config: Config, args: SessionArgs, serverNames: string[], readOnlyEnforced: boolean): Policy {
  const rules = (texts: string[], flag: string) =>
    texts.map((text) => {
      try {
        return parseRule(text, TOOL_NAMES, serverNames);
      } catch (error) {
        throw new UsageError(`${flag}: ${(error as Error).message}`);
      }
    });
  return new Policy(
    [...rules(config.allow, "config allow"), ...rules(args.allow, "--allow")],
    [...rules(config.deny, "config deny"), ...rules(args.deny, "--deny")],
    readOnlyEnforced,
  );
}

/** How checks are confined here; "require" with no sandbox that can run is a usage error. */
function sessionSandbox(config: Config): ReturnType<typeof chooseSandbox> {
  const choice = chooseSandbox({ mode: config.sandbox, network: Object.values(config.checks).some((check) => check.network === true) });
  if (config.sandbox === "require" && choice.missing) {
    throw new UsageError(`sandbox is "require" but no sandbox can run here: ${choice.missing}; or set "sandbox": "auto" to run checks unsandboxed`);
  }
  return choice;
}

/** The session's model, made from a spec, and whichever server of it the session holds: one llama-server per session. */
class SessionModels {
  ownServer: GgufModel | null = null;
  served: OpenAiModel | null = null;

  constructor(
    private readonly args: SessionArgs,
    private readonly workspaceRoot: string,
    private readonly wire: WireLog,
  ) {}

  /** `config`: the session's, under the profile of the model `spec` names. */
  modelFor(spec: string, config: Config, modelName = this.args.modelName): ModelClient {
    const { args } = this;
    // The demo's model is built in; in the TUI it streams at a model's pace.
    const model = spec === DEMO_MODEL ? demoModel(args.command === "tui" ? DEMO_PACE_MS : 0) : modelOf(spec, { ...args, modelName }, config, this.workspaceRoot, this.wire);
    // The server of the model this replaces is stopped: one llama-server per session.
    void this.ownServer?.stop();
    this.ownServer = model instanceof GgufModel ? model : null;
    this.served = model instanceof OpenAiModel ? model : null;
    // Outside the recorder: a recording keeps the raw text, and replaying it recovers the calls again.
    const recorded = args.record ? recording(model, resolve(args.record)) : model;
    const recovered = (args.textToolCalls ?? config.text_tool_calls) ? new TextCallModel(recorded) : recorded;
    return new ToolProtocolModel(recovered, config.tool_protocol);
  }
}

/**
 * Starts the llama-server of a gguf: model, before the first run, and says so in a server_start
 * event (said with the run's first events), which it returns. Nothing (null) for other models
 * or a server already running. A server that cannot start or load is a usage error: nothing has run.
 */
export async function startOwnServer(session: Session, onProgress?: LoadProgress, signal?: AbortSignal): Promise<ServerStarted | null> {
  const server = session.ownServer;
  if (!server || server.running) return null;
  try {
    const started = await server.start(onProgress, signal);
    session.pending.push({ kind: "server_start", ...started, log: relative(session.workspace.root, started.log) });
    return started;
  } catch (error) {
    if (error instanceof ServerStartError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * What a model needs before the first run: a gguf: model's server started, an openai: model's
 * name chosen from what its server lists (several and none named: a usage error listing them,
 * nothing sent). A server that cannot be reached or refuses the key is left for the run to say.
 */
export async function prepareModel(session: Session, onProgress?: LoadProgress, signal?: AbortSignal): Promise<void> {
  await startOwnServer(session, onProgress, signal);
  try {
    await session.served?.prepare(signal ?? new AbortController().signal);
  } catch (error) {
    if (error instanceof ModelChoiceError) throw new UsageError(error.message);
  }
}

/** A spec's model, with where its server runs and how it is reached (the key, the TLS it trusts). */
function modelOf(spec: string, args: SessionArgs, config: Config, workspaceRoot: string, wire: WireLog): ModelClient {
  const parsed = parseModelSpec(spec, args.baseUrl);
  const access = serverAccess(args, config, parsed.kind === "openai");
  return createModel(parsed, spec, config.model_options, wire, { config, workspaceRoot, access, modelName: args.modelName });
}

/**
 * Starts the session's MCP servers (asking the person, where there is one, about untrusted
 * ones and quarantined tools); their instructions join the prompt's layers.
 */
export async function connectServers(session: Session, questions: HubQuestions = {}, strictPrompt = false): Promise<void> {
  await session.mcp.start(questions);
  const names = new Set(session.layers.map((layer) => layer.name));
  session.layers.push(...session.mcp.layers().filter((layer) => !names.has(layer.name)));
  session.drift = promptDrift(session.workspace.root, session.layers);
  // A server's instructions are known only once it runs: --strict-prompt checks them here too.
  if (strictPrompt) refuseDrift(session.drift);
}

/** --strict-prompt: drift from prompts.lock is a usage error, before anything runs. */
function refuseDrift(drift: string[] | null): void {
  if (!drift?.length) return;
  throw new UsageError(`the prompt layers drifted from prompts.lock (--strict-prompt):\n  ${drift.join("\n  ")}\nreview them with glassbox audit, then glassbox audit --write-lock`);
}

/** The lock for quarantine decisions; a broken lock pins nothing (the drift findings say it is broken). */
function safeLock(root: string) {
  try {
    return readLock(root);
  } catch {
    return null;
  }
}

function recording(model: ModelClient, file: string): ModelClient {
  try {
    return new RecordingModel(model, file);
  } catch (error) {
    throw new UsageError(`--record: cannot write ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); check the path`);
  }
}

/** Stands in until a model is chosen; a run that starts anyway ends as a model_error that says what to do. */
const NO_MODEL: ModelClient = {
  name: "no model",
  async *reply() {
    throw new ModelError("no model is chosen: pass --model SPEC, set \"model\" in glassbox.json, or start llama-server or ollama serve");
  },
};

/** The saved todo list: restored as the plan state, and said in the first message. */
function resumeFrom(root: string, checkpoint: Checkpoint): string {
  let progress;
  try {
    progress = readProgress(root);
  } catch (error) {
    throw new UsageError(`--resume: ${(error as Error).message}`);
  }
  if (!progress) throw new UsageError("--resume: nothing to resume, there is no .glassbox/progress.json in the workspace (update_todo writes it)");
  checkpoint.todo.splice(0, checkpoint.todo.length, ...progress.items);
  return resumeNote(progress);
}

/** The layers of a workspace, with layer-source mistakes as usage errors. */
export function workspaceLayers(root: string): PromptLayer[] {
  try {
    return collectLayers(root);
  } catch (error) {
    if (error instanceof LayerError) throw new UsageError(error.message);
    throw error;
  }
}

function promptDrift(root: string, layers: PromptLayer[]): string[] | null {
  let lock;
  try {
    lock = readLock(root);
  } catch (error) {
    return [(error as Error).message];
  }
  return lock ? compareToLock(lock, layers).map(formatFinding) : null;
}
