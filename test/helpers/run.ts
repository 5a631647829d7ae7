import { Checkpoint, type Approver } from "../../src/core/checkpoint.ts";
import { resolveLimits, type LimitOverrides } from "../../src/protocol/limits.ts";
import { Policy, parseRule } from "../../src/core/policy.ts";
import { runAgent, type RunInput } from "../../src/core/loop.ts";
import type { AgentEvent, EventOf } from "../../src/protocol/events.ts";
import type { Message } from "../../src/protocol/messages.ts";
import type { Clock } from "../../src/protocol/clock.ts";
import { ScriptSchema, ScriptedModel, type ScriptedReply } from "../../src/model/scripted.ts";
import type { ModelClient, ModelRequest } from "../../src/protocol/model.ts";
import { TextCallModel } from "../../src/model/text-call-model.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { TOOL_NAMES, defaultTools } from "../../src/tools/index.ts";
import type { Checks } from "../../src/tools/checks.ts";
import type { Tool } from "../../src/tools/tool.ts";
import type { StartedRun } from "../../src/session/start-run.ts";

/** A clock that moves only when told to. */
export class FakeClock implements Clock {
  constructor(public time = Date.UTC(2026, 10, 30, 12, 0, 0)) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

/** A scripted model that also keeps every request it was sent, to check what the model saw. */
export class WatchedModel implements ModelClient {
  readonly requests: ModelRequest[] = [];
  readonly name = "scripted:test";
  private readonly inner: ScriptedModel;

  constructor(
    replies: ScriptedReply[],
    private readonly onRequest?: (request: ModelRequest) => void,
    /** Answers some requests out of turn (e.g. the summary request) without using up the script. */
    private readonly respond?: (request: ModelRequest) => ScriptedReply | null,
  ) {
    this.inner = new ScriptedModel("scripted:test", ScriptSchema.parse({ replies }));
  }

  reply(request: ModelRequest) {
    this.requests.push({ ...request, messages: structuredClone(request.messages) });
    this.onRequest?.(request);
    const special = this.respond?.(request);
    if (special) return new ScriptedModel("scripted:test", ScriptSchema.parse({ replies: [special] })).reply(request);
    return this.inner.reply(request);
  }

  /** Every message text the model was ever sent, joined. */
  seen(): string {
    return this.requests.map((request) => request.messages.map((message: Message) => message.content).join("\n")).join("\n");
  }
}

export interface ScriptedRun {
  events: AgentEvent[];
  model: WatchedModel;
  stop: EventOf<"stop">;
  calls: EventOf<"tool_call">[];
}

export interface RunOptions {
  workspace: string;
  limits?: LimitOverrides;
  checks?: Checks;
  allow?: string[];
  deny?: string[];
  approver?: Approver;
  clock?: FakeClock;
  execute?: boolean;
  offerTools?: boolean;
  tools?: Tool[];
  systemPrompt?: string;
  signal?: AbortSignal;
  onRequest?: (request: ModelRequest) => void;
  verify?: string;
  respond?: (request: ModelRequest) => ScriptedReply | null;
  discipline?: RunInput["discipline"];
  contextWindow?: number;
  /** Tool calls written in the reply's text are recovered, as a session does by default. */
  textCalls?: boolean;
  /** An earlier conversation the run continues (a saved session's record). */
  record?: Message[];
  summarizeFirst?: boolean;
  /** model_options.max_tokens: the reply cap a cut-off reply is named by. */
  replyTokenCap?: number;
}

/** Runs the real loop and checkpoint against a scripted model: no server, no person. */
export async function runScripted(replies: ScriptedReply[], options: RunOptions, task = "test task"): Promise<ScriptedRun> {
  const model = new WatchedModel(replies, options.onRequest, options.respond);
  const limits = resolveLimits(options.limits ?? {});
  const clock = options.clock ?? new FakeClock();
  const checkpoint = new Checkpoint({
    tools: options.tools ?? (options.offerTools === false ? [] : defaultTools(options.checks ?? {})),
    workspace: new Workspace(options.workspace),
    clock,
    policy: new Policy(
      (options.allow ?? []).map((rule) => parseRule(rule, TOOL_NAMES)),
      (options.deny ?? []).map((rule) => parseRule(rule, TOOL_NAMES)),
    ),
    approver: options.approver,
    maxResultChars: limits.max_result_chars,
    execute: options.execute ?? true,
  });
  const events: AgentEvent[] = [];
  for await (const event of runAgent({
    runId: "test-run",
    task,
    systemPrompt: options.systemPrompt ?? "You are a test.",
    model: options.textCalls ? new TextCallModel(model) : model,
    checkpoint,
    offerTools: options.offerTools ?? true,
    limits,
    clock,
    workspace: options.workspace,
    signal: options.signal,
    verify: options.verify,
    discipline: options.discipline,
    contextWindow: options.contextWindow,
    record: options.record,
    summarizeFirst: options.summarizeFirst,
    replyTokenCap: options.replyTokenCap,
  })) {
    events.push(event);
  }
  const stop = events.at(-1) as EventOf<"stop">;
  return { events, model, stop, calls: events.filter((event): event is EventOf<"tool_call"> => event.kind === "tool_call") };
}

/** A reply that calls one tool. */
export function call(name: string, args: unknown = {}, id?: string): ScriptedReply {
  return { content: "", tool_calls: [{ id, name, arguments: args }] };
}

/** A TUI run that streams nothing and ends only when it is stopped (Esc, Ctrl-C twice, quitting). */
export function heldRun(task: string, signal: AbortSignal): StartedRun {
  const events = (async function* (): AsyncGenerator<AgentEvent> {
    await new Promise((resolve) => signal.addEventListener("abort", resolve));
  })();
  return { runId: `held-${task}`, logPath: "", events };
}
