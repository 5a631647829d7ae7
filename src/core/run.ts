import { CHANGE_REPORTING_TOOLS } from "../protocol/tool-names.ts";
import type { AgentEvent, SubRunTotals } from "../protocol/events.ts";
import type { Limits } from "../protocol/limits.ts";
import type { Clock } from "../protocol/clock.ts";
import type { Message, ToolCallRequest } from "../protocol/messages.ts";
import { argumentsText } from "../protocol/messages.ts";
import { canonicalJson, decodeArguments } from "../protocol/canonical.ts";
import { ModelError, type ModelClient, type ToolDeclaration, type ToolProtocol } from "../protocol/model.ts";
import type { SandboxInfo } from "../protocol/sandbox-info.ts";
import { ContextManager, emptyContext, estimateTokens, transcriptChars, type ContextState, type NextRequest } from "./context.ts";
import { DEFAULT_BUDGET_WARNING, DEFAULT_CONTEXT_POLICY, DEFAULT_STALL_RULES, type BudgetWarning, type ContextPolicy, type StallRules } from "./discipline.ts";
import { Supervisor, type Said } from "./supervisor.ts";
import { CacheWatch } from "./cache-watch.ts";
import type { GateDecision } from "./gate.ts";
import { ReplyBuilder, type AssembledReply } from "../model/reply.ts";
import { ReplyFaults, cutOffCall, replayableCalls } from "./reply-faults.ts";
import type { CallContext, Checkpoint, Verdict } from "./checkpoint.ts";
import { modelFailure, oversizedBatch, repeatStop, stopBeforeCall, stopBeforeModel, subRunStepStop, type RunStanding, type Stop } from "./stop-rules.ts";
import { FINISH } from "../tools/finish.ts";
import { SUB_RUN_TOOLS } from "../tools/explore.ts";

export interface RunInput {
  runId: string;
  task: string;
  systemPrompt: string;
  /** The layers the system prompt was assembled from, recorded in run_start. */
  promptLayers?: Array<{ name: string; origin: string; digest: string }>;
  model: ModelClient;
  checkpoint: Checkpoint;
  /** false (--no-tools): no tool declarations are sent at all. */
  offerTools: boolean;
  limits: Limits;
  clock: Clock;
  workspace: string;
  /** How checks are confined, recorded in run_start. */
  sandbox?: SandboxInfo;
  /** The model profile the session applies (null: none), recorded in run_start. */
  profile?: { path: string; settings: Record<string, unknown> } | null;
  /** The most tokens one reply may take (model_options.max_tokens): it must fit the window too. */
  replyTokenCap?: number;
  /** The conversation so far (a TUI session's earlier turns); the run appends to it. */
  record?: Message[];
  /** The person asked for a summary (/compact): the run's first request summarizes the conversation so far. */
  summarizeFirst?: boolean;
  /** What the session's earlier runs compacted of that record; the run adds to it. */
  context?: ContextState;
  /** The user's stop button. */
  signal?: AbortSignal;
  /** Context management, stall rules and budget warnings (defaults in discipline.ts; null: switched off). */
  discipline?: { context?: ContextPolicy | null; stall?: StallRules | null; budgetWarning?: BudgetWarning };
  /** The check that must pass after the last edit before `finish` is accepted. */
  verify?: string;
  /** The window in tokens when the model cannot tell its own (a scripted model: num_ctx). */
  contextWindow?: number;
  /** Starts the sub-run of an `explore` call (loop.ts gives runs the default); absent: explore is refused as unavailable. */
  subRunner?: SubRunner;
  /** A sub-run: where its parent's budgets stood when it began, which it goes on spending. */
  budget?: RunBudget;
  /** A sub-run: its own step limit (limits.max_sub_run_steps), beside the budgets it shares. */
  ownStepLimit?: number;
}

/** What a parent had spent when its sub-run began, and when its deadline's clock started. */
export interface RunBudget {
  steps: number;
  calls: number;
  tokens: number;
  startedAt: number;
}

/** An explore call's question, its id (every event of its sub-run carries it), and the person's stop (the run's signal: the deadline is the sub-run's own to enforce, and name). */
export interface SubRunRequest {
  callId: string;
  question: string;
  signal?: AbortSignal;
}

/** A sub-run's end: the parent's tool result, and what it spent, charged to the parent. */
export interface SubRunOutcome {
  text: string;
  steps: number;
  calls: number;
  promptTokens: number;
  genTokens: number;
}

/** Runs a sub-run for `parent` (sub-run.ts), its events yielded as the parent's consumer takes them. */
export type SubRunner = (parent: Run, request: SubRunRequest) => AsyncGenerator<AgentEvent, SubRunOutcome>;

/** A sub-run an explore call asked for, parked until answerCalls drives it. */
interface ParkedSubRun {
  events: AsyncGenerator<AgentEvent, SubRunOutcome>;
  resolve(text: string): void;
  reject(error: unknown): void;
}

/** One reply of the model, taken into the record, with each call's screening (a refusal, or null). */
export interface Turn {
  reply: AssembledReply;
  screened: Array<string | null>;
}

/** A call's answer, and what it means for the run: a stop, or the gate's decision on a finish. */
type CallOutcome = Verdict & { stop?: Stop; gate?: GateDecision };

/**
 * A server that reports under half the prompt tokens we estimate probably cut the prompt. Tiny
 * prompts are left out: the estimate is too rough there.
 */
const TRUNCATION_RATIO = 0.5;
const TRUNCATION_FLOOR = 500;

/**
 * One run of the agent: its state (the record, steps, calls, tokens, repeats, the last reply's
 * text) and one method per stage. The loop (drive.ts) calls the stages; a sub-run is another Run,
 * driven by its parent's answerCalls while the explore call waits, whose spending is charged to
 * the parent when it ends (steps, calls and tokens include the sub-runs' from then on).
 */
export class Run {
  steps = 0;
  calls = 0;
  promptTokens = 0;
  genTokens = 0;
  /** What the sub-runs spent of the counts above; null until one ran. */
  subRuns: SubRunTotals | null = null;
  /** The latest non-empty reply text: the run's answer unless a stop names another. */
  lastText = "";
  readonly record: Message[];
  private readonly started: number;
  private readonly limits: Limits;
  /** Asked again before each request: a server's tool withdrawn mid-run is no longer offered. */
  private declarations: ToolDeclaration[];
  private readonly repeats = new Map<string, number>();
  private readonly context: ContextManager;
  private readonly supervisor: Supervisor;
  private readonly replyTokenCap: number;
  private readonly faults: ReplyFaults;
  private toolProtocol: ToolProtocol = "native";
  private readonly cacheWatch: CacheWatch;
  /** Where the stop rules read the run: a sub-run's counts on top of its parent's, the deadline from the parent's start. */
  private readonly standing: RunStanding;
  private parked: ParkedSubRun | null = null;
  private wakeDriver: (() => void) | null = null;

  constructor(private readonly input: RunInput) {
    const { limits, clock, checkpoint } = input;
    this.limits = limits;
    this.started = clock.now();
    this.standing = standingOf(this, input.budget);
    this.record = input.record ?? [];
    this.record.push({ role: "user", content: input.task });
    this.declarations = input.offerTools ? checkpoint.declarations() : [];
    this.context = new ContextManager({
      systemPrompt: input.systemPrompt,
      record: this.record,
      policy: input.discipline?.context === null ? null : (input.discipline?.context ?? DEFAULT_CONTEXT_POLICY),
      state: input.context ?? emptyContext(),
      todo: checkpoint.todo,
      maxTranscriptChars: limits.max_transcript_chars,
      replyTokenCap: input.replyTokenCap ?? 0,
      fallbackWindow: input.contextWindow ?? null,
      contextSize: input.model.contextSize?.bind(input.model),
      countTokens: input.model.countPromptTokens?.bind(input.model),
      summarizeFirst: input.summarizeFirst,
      summarize: (messages, tools, signal) => this.summarize(messages, tools, signal),
    });
    this.supervisor = new Supervisor({
      limits,
      stall: input.discipline?.stall === null ? null : (input.discipline?.stall ?? DEFAULT_STALL_RULES),
      budgetWarning: input.discipline?.budgetWarning ?? DEFAULT_BUDGET_WARNING,
      verify: input.verify,
      todo: checkpoint.todo,
    });
    this.replyTokenCap = input.replyTokenCap ?? 0;
    this.faults = new ReplyFaults(this.replyTokenCap);
    this.cacheWatch = new CacheWatch(() => input.model.cacheNote?.() ?? null);
  }

  get tokens(): number {
    return this.promptTokens + this.genTokens;
  }

  /** Seconds against the deadline: from the parent's start, for a sub-run. */
  get elapsedSeconds(): number {
    return (this.input.clock.now() - (this.input.budget?.startedAt ?? this.started)) / 1000;
  }

  /** The step events are numbered by: a sub-run's go on from its parent's, so a run's steps are numbered once. */
  private get step(): number {
    return (this.input.budget?.steps ?? 0) + this.steps;
  }

  get aborted(): boolean {
    return Boolean(this.input.signal?.aborted);
  }

  /** Before the first event: which tool protocol the model is spoken to in (a server that cannot say: native). */
  async prepare(): Promise<void> {
    try {
      const choice = await this.input.model.toolProtocol?.(this.input.signal ?? new AbortController().signal);
      if (choice) this.toolProtocol = choice.protocol;
    } catch {
      // The run's first request meets the same server and says what is wrong.
    }
  }

  /** The run's first event: what it runs with. */
  startEvent(): AgentEvent {
    return {
      kind: "run_start",
      run_id: this.input.runId,
      model: this.input.model.name,
      workspace: this.input.workspace,
      limits: this.limits,
      tools: this.declarations.map((tool) => tool.name),
      task: this.input.task,
      started_at: new Date(this.started).toISOString(),
      prompt_layers: this.input.promptLayers ?? [],
      ...(this.input.sandbox ? { sandbox: this.input.sandbox } : {}),
      tool_protocol: this.toolProtocol,
      ...(this.input.profile !== undefined ? { profile: this.input.profile } : {}),
    };
  }

  /** The run's last event. */
  stopEvent(stop: Stop): AgentEvent {
    return {
      kind: "stop",
      status: stop.status,
      steps: this.steps,
      tool_calls: this.calls,
      answer: stop.answer ?? this.lastText,
      reason: stop.reason,
      elapsed_ms: Math.round(this.input.clock.now() - this.started),
      prompt_tokens: this.promptTokens,
      gen_tokens: this.genTokens,
      ...(this.subRuns ? { sub_runs: { ...this.subRuns } } : {}),
    };
  }

  /**
   * What a sub-run for `request` inherits: the same prompt, model, limits and sandbox, the
   * checkpoint's read-only view with the sub-run's tools, a fresh record, the call's stop signal,
   * and the budgets as this run has spent them so far; its own step limit; no sub-runs of its own.
   */
  childInput(request: SubRunRequest, task: string): RunInput {
    const { input } = this;
    return {
      runId: `${input.runId}/${request.callId}`,
      task,
      systemPrompt: input.systemPrompt,
      promptLayers: input.promptLayers,
      model: input.model,
      checkpoint: input.checkpoint.readOnly(SUB_RUN_TOOLS),
      offerTools: input.offerTools,
      limits: this.limits,
      clock: input.clock,
      workspace: input.workspace,
      sandbox: input.sandbox,
      replyTokenCap: input.replyTokenCap,
      discipline: input.discipline,
      contextWindow: input.contextWindow,
      signal: request.signal,
      budget: { steps: this.standing.steps, calls: this.standing.calls, tokens: this.standing.tokens, startedAt: this.input.budget?.startedAt ?? this.started },
      ownStepLimit: this.limits.max_sub_run_steps,
    };
  }

  /** Stage 1, before the model: the tools on offer now, and the limits that end a run between replies. */
  beforeModel(): Stop | null {
    if (this.input.offerTools && this.steps > 0) this.declarations = this.input.checkpoint.declarations();
    return stopBeforeModel(this.standing, this.limits) ?? subRunStepStop(this.steps, this.input.ownStepLimit);
  }

  /** Stage 2, ask the model: one reply streamed, counted and put in the record; a failure is the run's stop. */
  async *askModel(): AsyncGenerator<AgentEvent, Turn | Stop> {
    // The deadline also cuts a reply that is still streaming.
    const scope = this.cancelScope();
    const builder = new ReplyBuilder();
    let reply: AssembledReply;
    let request: NextRequest;
    try {
      request = yield* this.context.next(this.declarations, scope.signal);
      this.steps++;
      yield { kind: "model_request", step: this.step, messages: request.messages.length, transcript_chars: request.chars, estimated_prompt_tokens: request.estimatedTokens };
      yield* this.streamReply(request.messages, builder, scope.signal);
      reply = builder.result(this.step);
    } catch (error) {
      // What streamed before the failure stays in the record and is the run's answer.
      const partial = builder.result(this.step).content;
      if (partial) {
        this.record.push({ role: "assistant", content: partial });
        this.lastText = partial;
      }
      return modelFailure(error, this.standing, this.limits);
    } finally {
      scope.dispose();
    }
    return yield* this.takeReply(reply, request);
  }

  /** Stage 3, judge the reply: a fault said to the model ("again"), a stop, or null when its calls are to be answered. */
  *judgeReply({ reply }: Turn): Generator<AgentEvent, Stop | "again" | null> {
    const fault = this.faults.judge(reply);
    if (fault?.stop) return fault.stop;
    if (fault) {
      yield { kind: "stall", rule: fault.rule, message: fault.message };
      this.record.push({ role: "user", content: `[glassbox] ${fault.message}` });
      return "again";
    }
    if (reply.tool_calls.length === 0) return { status: "completed", reason: "the model answered without calling a tool", answer: reply.content };
    return null;
  }

  /** Stage 4, answer the calls: every call gets an answer, in order; after a stop the rest are answered "not run". */
  async *answerCalls({ reply, screened }: Turn): AsyncGenerator<AgentEvent, Stop | null> {
    let stop: Stop | null | undefined = null;
    const notes: string[] = [];
    const oversized = oversizedBatch(reply.tool_calls.length, this.limits);
    // The reply's step: a sub-run's steps, charged to this run meanwhile, come after it.
    const step = this.step;
    for (const [index, call] of reply.tool_calls.entries()) {
      const hostile = screened[index]!;
      const key = call.name + "\u0000" + (hostile ?? canonicalJson(decodeArguments(call.arguments)));
      const verdict: CallOutcome = stop
        ? afterStop(stop)
        : yield* this.withSubRuns(this.handleCall(call, key, oversized ?? hostile ?? cutOffCall(call, reply, this.replyTokenCap)));
      if (verdict.gate) yield { kind: "gate", ...verdict.gate };
      if (verdict.decision === "stopped" && !stop) stop = verdict.stop!;
      if (verdict.finished && !stop) stop = { status: "completed", reason: "the model called finish", answer: verdict.finished.summary };
      this.record.push({ role: "tool", tool_call_id: call.id, name: call.name, content: verdict.content });
      yield* this.callEvents(call, verdict, step);
      if (verdict.decision !== "stopped") yield* say(this.supervisor.afterCall(call.name, key, verdict), notes);
    }
    if (stop) return stop;
    yield* say(this.supervisor.afterTurn(this.elapsedSeconds, this.standing.tokens), notes);
    // Said after all of the turn's tool results: a message between a call and its result breaks chat APIs.
    if (notes.length) this.record.push({ role: "user", content: `[glassbox] ${notes.join("\n")}` });
    return null;
  }

  /** The reply counted (tokens, the last text), screened, recorded and reported; a prompt the server seems to have cut is said. */
  private *takeReply(reply: AssembledReply, request: NextRequest): Generator<AgentEvent, Turn> {
    this.promptTokens += reply.prompt_tokens ?? estimateTokens(request.chars);
    this.context.learn(reply.prompt_tokens);
    this.genTokens += reply.gen_tokens ?? estimateTokens(reply.content.length + reply.thinking.length);
    this.lastText = reply.content || this.lastText;
    // Before anything walks the arguments (the record's copy, the repeat key, the checkpoint): too deep or too large is refused.
    const screened = reply.tool_calls.map((call) => this.input.checkpoint.screenArguments(call));
    this.record.push({
      role: "assistant",
      content: reply.content,
      ...(reply.thinking ? { thinking: reply.thinking } : {}),
      ...(reply.tool_calls.length ? { tool_calls: replayableCalls(reply.tool_calls, screened) } : {}),
    });
    yield {
      kind: "model_reply",
      step: this.step,
      text: reply.content,
      text_chars: reply.content.length,
      tool_calls: reply.tool_calls.length,
      prompt_tokens: reply.prompt_tokens,
      gen_tokens: reply.gen_tokens,
      tokens_per_second: reply.tokens_per_second,
      finish_reason: reply.finish_reason,
      cached_tokens: reply.cached_tokens,
      prefill_ms: reply.prefill_ms,
    };
    const miss = this.cacheWatch.observe(this.steps, request.messages, this.declarations, reply.prompt_tokens, reply.cached_tokens);
    if (miss) yield miss;
    const estimated = request.estimatedTokens;
    if (reply.prompt_tokens !== null && estimated >= TRUNCATION_FLOOR && reply.prompt_tokens < estimated * TRUNCATION_RATIO) {
      yield { kind: "truncation_suspected", step: this.step, estimated_prompt_tokens: estimated, reported_prompt_tokens: reply.prompt_tokens };
    }
    return { reply, screened };
  }

  /** The model's reply, streamed into `builder`, each piece an event for the live panes. */
  private async *streamReply(messages: Message[], builder: ReplyBuilder, signal: AbortSignal): AsyncGenerator<AgentEvent> {
    let pieces = 0;
    const steps = this.step;
    for await (const delta of this.input.model.reply({ messages, tools: this.declarations, signal })) {
      builder.add(delta);
      if (delta.type === "text" || delta.type === "thinking") {
        pieces += delta.chunks ?? 1;
        yield { kind: "model_delta", step: steps, channel: delta.type, text: delta.text, tokens: pieces };
      } else if (delta.type === "tool_call") {
        pieces++;
      } else if (delta.type === "notice") {
        yield { kind: "model_notice", step: steps, text: delta.text };
      } else if (delta.type === "retry") {
        yield { kind: "model_retry", step: steps, attempt: delta.attempt, reason: delta.reason };
      } else if (delta.type === "done") {
        yield { kind: "model_done", step: steps, finish_reason: delta.finish_reason };
      }
    }
  }

  /** A call's event, and its internal error (never shown to the model) when it had one. */
  private *callEvents(call: ToolCallRequest, verdict: CallOutcome, step: number): Generator<AgentEvent> {
    yield {
      kind: "tool_call",
      step,
      id: call.id,
      tool: verdict.tool ?? call.name,
      arguments: argumentsText(call.arguments),
      decision: verdict.decision,
      reason: verdict.reason,
      result_chars: verdict.content.length,
      result: verdict.content,
      ...(call.from_text ? { from_text: true as const } : {}),
      ...(CHANGE_REPORTING_TOOLS.includes(verdict.tool ?? call.name) ? { changes: verdict.changes?.changes ?? [], ignored_changes: verdict.changes?.ignored ?? 0 } : {}),
    };
    if (verdict.detail) yield { kind: "tool_error", step, id: call.id, tool: call.name, detail: verdict.detail };
  }

  /** One extra model call, with the same tools block so the server's cache holds: the model summarizes its own work so far. */
  private async summarize(messages: Message[], tools: ToolDeclaration[], signal: AbortSignal): Promise<string> {
    const builder = new ReplyBuilder();
    for await (const delta of this.input.model.reply({ messages, tools, signal, purpose: "summary" })) builder.add(delta);
    const result = builder.result(this.step);
    this.promptTokens += result.prompt_tokens ?? estimateTokens(transcriptChars(messages));
    this.genTokens += result.gen_tokens ?? estimateTokens(result.content.length);
    if (!result.content.trim()) throw new ModelError("the model wrote an empty summary when the context was full");
    return result.content.trim();
  }

  /** `refusal`: why the call is refused before the checkpoint sees it (too many in the reply, cut off at the cap). */
  private async handleCall(call: ToolCallRequest, key: string, refusal: string | null): Promise<CallOutcome> {
    const limit = stopBeforeCall(this.standing, this.limits);
    if (limit) return stopped(limit);
    this.calls++;
    if (refusal) return { decision: "refused", reason: refusal, content: `Refused: ${refusal}` };
    const seen = (this.repeats.get(key) ?? 0) + 1;
    this.repeats.set(key, seen);
    const repeated = repeatStop(call.name, seen, this.limits);
    if (repeated) return stopped(repeated);
    const gate = call.name === FINISH ? this.supervisor.checkFinish() : null;
    if (gate && !gate.allowed) return { decision: "refused", reason: gate.reason, content: `Refused: ${gate.reason}`, gate };
    const scope = this.cancelScope();
    try {
      return { ...(await this.input.checkpoint.handle(call, scope.signal, this.lend(call))), ...(gate ? { gate } : {}) };
    } finally {
      scope.dispose();
    }
  }

  /** What the call's tool may use of the run: explore's sub-run, parked for answerCalls to drive (withSubRuns). */
  private lend(call: ToolCallRequest): CallContext {
    const runner = this.input.subRunner;
    if (!runner) return {};
    return {
      explore: (question) =>
        new Promise<string>((resolve, reject) => {
          this.parked = { events: runner(this, { callId: call.id, question, signal: this.input.signal }), resolve, reject };
          this.wakeDriver?.();
        }),
    };
  }

  /**
   * A call's answer, and meanwhile the events of a sub-run it started: pulled as the consumer
   * takes them (each is logged before the sub-run goes on), its spending charged to this run.
   * Sub-runs run one at a time: a call waits for its own.
   */
  private async *withSubRuns(work: Promise<CallOutcome>): AsyncGenerator<AgentEvent, CallOutcome> {
    let settled = false;
    const settle = () => {
      settled = true;
      this.wakeDriver?.();
    };
    work.then(settle, settle);
    for (;;) {
      const parked = this.parked;
      if (parked) {
        this.parked = null;
        try {
          const outcome = yield* parked.events;
          this.charge(outcome);
          parked.resolve(outcome.text);
        } catch (error) {
          parked.reject(error);
        }
      } else if (settled) {
        return await work;
      } else {
        await new Promise<void>((wake) => (this.wakeDriver = wake));
        this.wakeDriver = null;
      }
    }
  }

  /** A sub-run's spending, counted as this run's own from now on. */
  private charge(outcome: SubRunOutcome): void {
    this.steps += outcome.steps;
    this.calls += outcome.calls;
    this.promptTokens += outcome.promptTokens;
    this.genTokens += outcome.genTokens;
    const totals = (this.subRuns ??= { runs: 0, steps: 0, tool_calls: 0, prompt_tokens: 0, gen_tokens: 0 });
    totals.runs++;
    totals.steps += outcome.steps;
    totals.tool_calls += outcome.calls;
    totals.prompt_tokens += outcome.promptTokens;
    totals.gen_tokens += outcome.genTokens;
  }

  /** A signal that fires when the user stops the run or the deadline passes. */
  private cancelScope(): { signal: AbortSignal; dispose(): void } {
    const abort = new AbortController();
    const onUserStop = () => abort.abort();
    const signal = this.input.signal;
    signal?.addEventListener("abort", onUserStop, { once: true });
    const timer = setTimeout(() => abort.abort(), Math.max(0, this.limits.deadline_seconds - this.elapsedSeconds) * 1000);
    return {
      signal: abort.signal,
      dispose() {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onUserStop);
      },
    };
  }
}

/** A run's standing for the stop rules: its counts over a parent's (a sub-run's budget), read when a rule asks. */
function standingOf(run: Run, budget: RunBudget | undefined): RunStanding {
  return {
    get steps() {
      return (budget?.steps ?? 0) + run.steps;
    },
    get calls() {
      return (budget?.calls ?? 0) + run.calls;
    },
    get tokens() {
      return (budget?.tokens ?? 0) + run.tokens;
    },
    get elapsedSeconds() {
      return run.elapsedSeconds;
    },
    get aborted() {
      return run.aborted;
    },
  };
}

function* say(said: Said, notes: string[]): Generator<AgentEvent> {
  notes.push(...said.notes);
  yield* said.events;
}

function stopped(stop: Stop): Verdict & { stop: Stop } {
  return { decision: "stopped", reason: stop.reason, content: `Not run: the run is stopping (${stop.status}).`, stop };
}

function afterStop(stop: Stop): Verdict {
  return { decision: "stopped", reason: `not run: the run is ending (${stop.status})`, content: `Not run: the run is ending (${stop.status}).` };
}
