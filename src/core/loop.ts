import type { AgentEvent, StopStatus } from "../protocol/events.ts";
import type { Limits } from "../protocol/limits.ts";
import type { Clock } from "../protocol/clock.ts";
import type { Message, ToolCallRequest } from "../protocol/messages.ts";
import { argumentsText } from "../protocol/messages.ts";
import { canonicalJson, decodeArguments } from "../protocol/canonical.ts";
import { ContextManager, emptyContext, estimateTokens, transcriptChars, type ContextState, type NextRequest } from "./context.ts";
import { DEFAULT_BUDGET_WARNING, DEFAULT_CONTEXT_POLICY, DEFAULT_STALL_RULES, type BudgetWarning, type ContextPolicy, type StallRules } from "./discipline.ts";
import { Supervisor, type Said } from "./supervisor.ts";
import type { GateDecision } from "./gate.ts";
import { ReplyBuilder, type AssembledReply } from "../model/reply.ts";
import { ReplyFaults, cutOffCall, replayableCalls } from "./reply-faults.ts";
import type { Checkpoint, Verdict } from "./checkpoint.ts";
import { ModelError, type ModelClient, type ToolDeclaration } from "../protocol/model.ts";
import { FINISH } from "../tools/finish.ts";
import type { SandboxInfo } from "../protocol/sandbox-info.ts";

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
}

interface Stop {
  status: StopStatus;
  reason: string;
  answer?: string;
}

/** A call's answer, and what it means for the run: a stop, or the gate's decision on a finish. */
type CallOutcome = Verdict & { stop?: Stop; gate?: GateDecision };

const USER_STOP: Stop = { status: "interrupted", reason: "the user stopped the run" };

/**
 * A server that reports under half the prompt tokens we estimate probably cut the prompt. Tiny
 * prompts are left out: the estimate is too rough there.
 */
const TRUNCATION_RATIO = 0.5;
const TRUNCATION_FLOOR = 500;

/**
 * The agent loop: ask the model, pass every tool call through the checkpoint, repeat until a
 * reply without tool calls, an allowed `finish`, or a limit. Every run ends with one `stop`.
 */
export async function* runAgent(input: RunInput): AsyncGenerator<AgentEvent> {
  const { limits, clock, checkpoint } = input;
  const started = clock.now();
  const elapsedSeconds = () => (clock.now() - started) / 1000;
  const pastDeadline = () => elapsedSeconds() >= limits.deadline_seconds;
  const record = input.record ?? [];
  record.push({ role: "user", content: input.task });
  // Asked again before each request: a server's tool withdrawn mid-run is no longer offered.
  let declarations = input.offerTools ? checkpoint.declarations() : [];
  const repeats = new Map<string, number>();
  const context = new ContextManager({
    systemPrompt: input.systemPrompt,
    record,
    policy: input.discipline?.context === null ? null : (input.discipline?.context ?? DEFAULT_CONTEXT_POLICY),
    state: input.context ?? emptyContext(),
    todo: checkpoint.todo,
    maxTranscriptChars: limits.max_transcript_chars,
    replyTokenCap: input.replyTokenCap ?? 0,
    fallbackWindow: input.contextWindow ?? null,
    contextSize: input.model.contextSize?.bind(input.model),
    countTokens: input.model.countPromptTokens?.bind(input.model),
    summarizeFirst: input.summarizeFirst,
    summarize,
  });
  const supervisor = new Supervisor({
    limits,
    stall: input.discipline?.stall === null ? null : (input.discipline?.stall ?? DEFAULT_STALL_RULES),
    budgetWarning: input.discipline?.budgetWarning ?? DEFAULT_BUDGET_WARNING,
    verify: input.verify,
    todo: checkpoint.todo,
  });
  let steps = 0;
  let calls = 0;
  let promptTokens = 0;
  let genTokens = 0;
  let lastText = "";
  const replyTokenCap = input.replyTokenCap ?? 0;
  const faults = new ReplyFaults(replyTokenCap);

  yield {
    kind: "run_start",
    run_id: input.runId,
    model: input.model.name,
    workspace: input.workspace,
    limits,
    tools: declarations.map((tool) => tool.name),
    task: input.task,
    started_at: new Date(started).toISOString(),
    prompt_layers: input.promptLayers ?? [],
    ...(input.sandbox ? { sandbox: input.sandbox } : {}),
  };

  const stopEvent = (stop: Stop): AgentEvent => ({
    kind: "stop",
    status: stop.status,
    steps,
    tool_calls: calls,
    answer: stop.answer ?? lastText,
    reason: stop.reason,
    elapsed_ms: Math.round(clock.now() - started),
    prompt_tokens: promptTokens,
    gen_tokens: genTokens,
  });

  for (;;) {
    if (input.offerTools && steps > 0) declarations = checkpoint.declarations();
    const before = checkBeforeModel();
    if (before) return yield stopEvent(before);

    // The deadline also cuts a reply that is still streaming.
    const scope = cancelScope();
    const builder = new ReplyBuilder();
    let reply: AssembledReply;
    let request: NextRequest;
    try {
      request = yield* context.next(declarations, scope.signal);
      steps++;
      yield { kind: "model_request", step: steps, messages: request.messages.length, transcript_chars: request.chars, estimated_prompt_tokens: request.estimatedTokens };
      yield* streamReply(request.messages, builder, scope.signal);
      reply = builder.result(steps);
    } catch (error) {
      // What streamed before the failure stays in the record and is the run's answer.
      const partial = builder.result(steps).content;
      if (partial) {
        record.push({ role: "assistant", content: partial });
        lastText = partial;
      }
      return yield stopEvent(modelFailure(error));
    } finally {
      scope.dispose();
    }

    promptTokens += reply.prompt_tokens ?? estimateTokens(request.chars);
    context.learn(reply.prompt_tokens);
    genTokens += reply.gen_tokens ?? estimateTokens(reply.content.length + reply.thinking.length);
    lastText = reply.content || lastText;
    // Before anything walks the arguments (the record's copy, the repeat key, the checkpoint): too deep or too large is refused.
    const screened = reply.tool_calls.map((call) => checkpoint.screenArguments(call));
    record.push({
      role: "assistant",
      content: reply.content,
      ...(reply.thinking ? { thinking: reply.thinking } : {}),
      ...(reply.tool_calls.length ? { tool_calls: replayableCalls(reply.tool_calls, screened) } : {}),
    });
    yield {
      kind: "model_reply",
      step: steps,
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
    const estimated = request.estimatedTokens;
    if (reply.prompt_tokens !== null && estimated >= TRUNCATION_FLOOR && reply.prompt_tokens < estimated * TRUNCATION_RATIO) {
      yield { kind: "truncation_suspected", step: steps, estimated_prompt_tokens: estimated, reported_prompt_tokens: reply.prompt_tokens };
    }

    const fault = faults.judge(reply);
    if (fault?.stop) return yield stopEvent(fault.stop);
    if (fault) {
      yield { kind: "stall", rule: fault.rule, message: fault.message };
      record.push({ role: "user", content: `[glassbox] ${fault.message}` });
      continue;
    }
    if (reply.tool_calls.length === 0) {
      return yield stopEvent({ status: "completed", reason: "the model answered without calling a tool", answer: reply.content });
    }

    let stop: Stop | null = null;
    const notes: string[] = [];
    const batch = reply.tool_calls.length;
    const oversized = batch > limits.max_calls_per_reply
      ? `this reply asked for ${batch} tool calls and at most ${limits.max_calls_per_reply} are allowed per reply; ask for fewer at a time.`
      : null;
    for (const [index, call] of reply.tool_calls.entries()) {
      const hostile = screened[index]!;
      const key = call.name + "\u0000" + (hostile ?? canonicalJson(decodeArguments(call.arguments)));
      const verdict: CallOutcome = stop
        ? afterStop(stop)
        : await handleCall(call, key, oversized ?? hostile ?? cutOffCall(call, reply, replyTokenCap));
      if (verdict.gate) yield { kind: "gate", ...verdict.gate };
      if (verdict.decision === "stopped" && !stop) stop = verdict.stop!;
      if (verdict.finished && !stop) stop = { status: "completed", reason: "the model called finish", answer: verdict.finished.summary };
      record.push({ role: "tool", tool_call_id: call.id, name: call.name, content: verdict.content });
      yield {
        kind: "tool_call",
        step: steps,
        id: call.id,
        tool: verdict.tool ?? call.name,
        arguments: argumentsText(call.arguments),
        decision: verdict.decision,
        reason: verdict.reason,
        result_chars: verdict.content.length,
        result: verdict.content,
        ...(call.from_text ? { from_text: true as const } : {}),
      };
      if (verdict.detail) yield { kind: "tool_error", step: steps, id: call.id, tool: call.name, detail: verdict.detail };
      if (verdict.decision !== "stopped") yield* say(supervisor.afterCall(call.name, key, verdict), notes);
    }
    if (stop) return yield stopEvent(stop);
    yield* say(supervisor.afterTurn(elapsedSeconds(), promptTokens + genTokens), notes);
    // Said after all of the turn's tool results: a message between a call and its result breaks chat APIs.
    if (notes.length) record.push({ role: "user", content: `[glassbox] ${notes.join("\n")}` });
  }

  /** The model's reply, streamed into `builder`, each piece an event for the live panes. */
  async function* streamReply(messages: Message[], builder: ReplyBuilder, signal: AbortSignal): AsyncGenerator<AgentEvent> {
    let pieces = 0;
    for await (const delta of input.model.reply({ messages, tools: declarations, signal })) {
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

  function* say(said: Said, notes: string[]): Generator<AgentEvent> {
    notes.push(...said.notes);
    yield* said.events;
  }

  /** One extra model call, with the same tools block so the server's cache holds: the model summarizes its own work so far. */
  async function summarize(messages: Message[], tools: ToolDeclaration[], signal: AbortSignal): Promise<string> {
    const builder = new ReplyBuilder();
    for await (const delta of input.model.reply({ messages, tools, signal, purpose: "summary" })) builder.add(delta);
    const result = builder.result(steps);
    promptTokens += result.prompt_tokens ?? estimateTokens(transcriptChars(messages));
    genTokens += result.gen_tokens ?? estimateTokens(result.content.length);
    if (!result.content.trim()) throw new ModelError("the model wrote an empty summary when the context was full");
    return result.content.trim();
  }

  function checkBeforeModel(): Stop | null {
    if (input.signal?.aborted) return USER_STOP;
    if (pastDeadline()) return deadlineStop();
    if (steps >= limits.max_steps) return { status: "step_limit", reason: `the model replied ${steps} times, the most allowed (max_steps)` };
    if (limits.max_tokens > 0 && promptTokens + genTokens >= limits.max_tokens) {
      return { status: "token_limit", reason: `${promptTokens + genTokens} tokens used of max_tokens ${limits.max_tokens}` };
    }
    return null;
  }

  function deadlineStop(): Stop {
    return { status: "deadline", reason: `the run passed its deadline of ${limits.deadline_seconds}s` };
  }

  function modelFailure(error: unknown): Stop {
    if (input.signal?.aborted) return USER_STOP;
    if (pastDeadline()) return deadlineStop();
    if (error instanceof ModelError) return { status: error.status, reason: error.message };
    return { status: "model_error", reason: error instanceof Error ? error.message : String(error) };
  }

  /** `refusal`: why the call is refused before the checkpoint sees it (too many in the reply, cut off at the cap). */
  async function handleCall(call: ToolCallRequest, key: string, refusal: string | null): Promise<CallOutcome> {
    if (calls >= limits.max_tool_calls) {
      return stopped({ status: "call_limit", reason: `${calls} tool calls made, the most allowed (max_tool_calls)` });
    }
    if (pastDeadline()) return stopped(deadlineStop());
    if (input.signal?.aborted) return stopped(USER_STOP);
    calls++;
    if (refusal) return { decision: "refused", reason: refusal, content: `Refused: ${refusal}` };
    const seen = (repeats.get(key) ?? 0) + 1;
    repeats.set(key, seen);
    if (seen > limits.max_repeat) {
      return stopped({ status: "repeat_limit", reason: `${call.name} was called ${seen} times with the same arguments (max_repeat ${limits.max_repeat})` });
    }
    const gate = call.name === FINISH ? supervisor.checkFinish() : null;
    if (gate && !gate.allowed) return { decision: "refused", reason: gate.reason, content: `Refused: ${gate.reason}`, gate };
    const scope = cancelScope();
    try {
      return { ...(await checkpoint.handle(call, scope.signal)), ...(gate ? { gate } : {}) };
    } finally {
      scope.dispose();
    }
  }

  /** A signal that fires when the user stops the run or the deadline passes. */
  function cancelScope(): { signal: AbortSignal; dispose(): void } {
    const abort = new AbortController();
    const onUserStop = () => abort.abort();
    input.signal?.addEventListener("abort", onUserStop, { once: true });
    const timer = setTimeout(() => abort.abort(), Math.max(0, limits.deadline_seconds - elapsedSeconds()) * 1000);
    return {
      signal: abort.signal,
      dispose() {
        clearTimeout(timer);
        input.signal?.removeEventListener("abort", onUserStop);
      },
    };
  }
}

function stopped(stop: Stop): Verdict & { stop: Stop } {
  return { decision: "stopped", reason: stop.reason, content: `Not run: the run is stopping (${stop.status}).`, stop };
}

function afterStop(stop: Stop): Verdict {
  return { decision: "stopped", reason: `not run: the run is ending (${stop.status})`, content: `Not run: the run is ending (${stop.status}).` };
}
