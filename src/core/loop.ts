import type { AgentEvent, StopStatus } from "./events.ts";
import type { Limits } from "./limits.ts";
import type { Clock } from "./clock.ts";
import type { Message, ToolCallRequest } from "./messages.ts";
import { argumentsText } from "./messages.ts";
import { canonicalJson, decodeArguments } from "./canonical.ts";
import { modelView, transcriptChars } from "./context.ts";
import { ReplyBuilder, type AssembledReply } from "./reply.ts";
import type { Checkpoint, Verdict } from "./checkpoint.ts";
import { ModelError, type ModelClient } from "../model/types.ts";

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
  /** The most tokens one reply may take (model_options.max_tokens): it must fit the window too. */
  replyTokenCap?: number;
  /** The conversation so far (a TUI session's earlier turns); the run appends to it. */
  record?: Message[];
  /** The user's stop button. */
  signal?: AbortSignal;
}

interface Stop {
  status: StopStatus;
  reason: string;
  answer?: string;
}

const USER_STOP: Stop = { status: "interrupted", reason: "the user stopped the run" };

/**
 * A server that reports under half the prompt tokens we estimate probably cut the prompt. Tiny
 * prompts are left out: the estimate is too rough there.
 */
const TRUNCATION_RATIO = 0.5;
const TRUNCATION_FLOOR = 500;

/** Roughly four characters a token, for budgets when a server reports no usage. */
const estimateTokens = (chars: number) => Math.ceil(chars / 4);

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
  const declarations = input.offerTools ? checkpoint.declarations() : [];
  const declarationsChars = declarations.length ? JSON.stringify(declarations).length : 0;
  let contextSize: number | null | undefined;
  const repeats = new Map<string, number>();
  let steps = 0;
  let calls = 0;
  let promptTokens = 0;
  let genTokens = 0;
  let lastText = "";

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
    const view = modelView(input.systemPrompt, record);
    const viewChars = transcriptChars(view);
    const before = checkBeforeModel(viewChars);
    if (before) return yield stopEvent(before);

    const estimatedPrompt = estimateTokens(viewChars + declarationsChars);
    // The deadline also cuts a reply that is still streaming.
    const scope = cancelScope();
    const builder = new ReplyBuilder();
    let reply: AssembledReply;
    try {
      if (contextSize === undefined && input.model.contextSize) {
        contextSize = await input.model.contextSize(scope.signal);
        if (contextSize) yield { kind: "model_info", context_size: contextSize };
      }
      // A server that gets more than its window cuts the front off silently: better not to send it.
      const needed = estimatedPrompt + (input.replyTokenCap ?? 0);
      if (contextSize && needed > contextSize) {
        return yield stopEvent({
          status: "context_limit",
          reason: `the prompt (about ${estimatedPrompt} tokens) and the reply cap (${input.replyTokenCap ?? 0}) do not fit the server's context window of ${contextSize} tokens`,
        });
      }

      steps++;
      yield { kind: "model_request", step: steps, messages: view.length, transcript_chars: viewChars, estimated_prompt_tokens: estimatedPrompt };
      let pieces = 0;
      for await (const delta of input.model.reply({ messages: view, tools: declarations, signal: scope.signal })) {
        builder.add(delta);
        if (delta.type === "text" || delta.type === "thinking") {
          yield { kind: "model_delta", step: steps, channel: delta.type, text: delta.text, tokens: ++pieces };
        } else if (delta.type === "tool_call") {
          pieces++;
        } else if (delta.type === "notice") {
          yield { kind: "model_notice", step: steps, text: delta.text };
        }
      }
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

    promptTokens += reply.prompt_tokens ?? estimateTokens(viewChars);
    genTokens += reply.gen_tokens ?? estimateTokens(reply.content.length + reply.thinking.length);
    lastText = reply.content || lastText;
    record.push({
      role: "assistant",
      content: reply.content,
      ...(reply.thinking ? { thinking: reply.thinking } : {}),
      ...(reply.tool_calls.length ? { tool_calls: reply.tool_calls } : {}),
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
    };
    if (reply.prompt_tokens !== null && estimatedPrompt >= TRUNCATION_FLOOR && reply.prompt_tokens < estimatedPrompt * TRUNCATION_RATIO) {
      yield { kind: "truncation_suspected", step: steps, estimated_prompt_tokens: estimatedPrompt, reported_prompt_tokens: reply.prompt_tokens };
    }

    if (reply.tool_calls.length === 0) {
      return yield stopEvent({ status: "completed", reason: "the model answered without calling a tool", answer: reply.content });
    }

    let stop: Stop | null = null;
    const oversized = reply.tool_calls.length > limits.max_calls_per_reply;
    for (const call of reply.tool_calls) {
      const verdict: Verdict & { stop?: Stop } = stop ? afterStop(stop) : await handleCall(call, oversized, reply.tool_calls.length);
      if (verdict.decision === "stopped" && !stop) stop = verdict.stop!;
      if (verdict.finished && !stop) stop = { status: "completed", reason: "the model called finish", answer: verdict.finished.summary };
      record.push({ role: "tool", tool_call_id: call.id, name: call.name, content: verdict.content });
      yield {
        kind: "tool_call",
        step: steps,
        id: call.id,
        tool: call.name,
        arguments: argumentsText(call.arguments),
        decision: verdict.decision,
        reason: verdict.reason,
        result_chars: verdict.content.length,
        result: verdict.content,
      };
      if (verdict.detail) yield { kind: "tool_error", step: steps, id: call.id, tool: call.name, detail: verdict.detail };
    }
    if (stop) return yield stopEvent(stop);
  }

  function checkBeforeModel(chars: number): Stop | null {
    if (input.signal?.aborted) return USER_STOP;
    if (pastDeadline()) return deadlineStop();
    if (steps >= limits.max_steps) return { status: "step_limit", reason: `the model replied ${steps} times, the most allowed (max_steps)` };
    if (limits.max_tokens > 0 && promptTokens + genTokens >= limits.max_tokens) {
      return { status: "token_limit", reason: `${promptTokens + genTokens} tokens used of max_tokens ${limits.max_tokens}` };
    }
    if (chars > limits.max_transcript_chars) {
      return { status: "context_limit", reason: `the transcript holds ${chars} characters, over max_transcript_chars ${limits.max_transcript_chars}` };
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

  async function handleCall(call: ToolCallRequest, oversized: boolean, batch: number): Promise<Verdict & { stop?: Stop }> {
    if (calls >= limits.max_tool_calls) {
      return stopped({ status: "call_limit", reason: `${calls} tool calls made, the most allowed (max_tool_calls)` });
    }
    if (pastDeadline()) return stopped(deadlineStop());
    if (input.signal?.aborted) return stopped(USER_STOP);
    calls++;
    if (oversized) {
      const reason = `this reply asked for ${batch} tool calls and at most ${limits.max_calls_per_reply} are allowed per reply; ask for fewer at a time.`;
      return { decision: "refused", reason, content: `Refused: ${reason}` };
    }
    const key = call.name + "\u0000" + canonicalJson(decodeArguments(call.arguments));
    const seen = (repeats.get(key) ?? 0) + 1;
    repeats.set(key, seen);
    if (seen > limits.max_repeat) {
      return stopped({ status: "repeat_limit", reason: `${call.name} was called ${seen} times with the same arguments (max_repeat ${limits.max_repeat})` });
    }
    const scope = cancelScope();
    try {
      return await checkpoint.handle(call, scope.signal);
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
