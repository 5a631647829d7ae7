import type { AgentEvent } from "../protocol/events.ts";
import type { Limits } from "../protocol/limits.ts";
import { cacheText, type Meter } from "./meters.ts";

/** What the meters and the status line show, folded from the event stream. */
export interface RunView {
  state: string;
  limits: Limits;
  steps: number;
  calls: number;
  promptTokens: number;
  genTokens: number;
  /** The prompt size of the latest request (reported, else estimated): the context fill. */
  contextUsed: number;
  contextSize: number | null;
  startedAt: number | null;
  endedAt: number | null;
  /** Pieces received in the reply that is streaming, and when it began. */
  streamPieces: number;
  streamStartedAt: number | null;
  tokensPerSecond: number | null;
  /** The prompt cache: the share of the last prompt the server reused, its prefill time, the run's total (null: not reported). */
  reusedShare: number | null;
  lastPrefillMs: number | null;
  runPrefillMs: number | null;
}

/** `contextSize`: the window when it is known before any server says (a scripted model's num_ctx). */
export function emptyView(limits: Limits, contextSize: number | null = null): RunView {
  return {
    state: "idle",
    limits,
    steps: 0,
    calls: 0,
    promptTokens: 0,
    genTokens: 0,
    contextUsed: 0,
    contextSize,
    startedAt: null,
    endedAt: null,
    streamPieces: 0,
    streamStartedAt: null,
    tokensPerSecond: null,
    reusedShare: null,
    lastPrefillMs: null,
    runPrefillMs: null,
  };
}

/**
 * Folds one event into the view. `now` is when it arrived (milliseconds). A sub-run's events are
 * the run's own as the meters count (its steps, calls and tokens are the run's budgets), but its
 * start and stop are not the run's: they only name what the run is doing.
 */
export function fold(view: RunView, event: AgentEvent, now: number): RunView {
  if (event.sub_run !== undefined && (event.kind === "run_start" || event.kind === "stop")) {
    return { ...view, state: event.kind === "run_start" ? "exploring (sub-run)" : "running tools", streamStartedAt: null };
  }
  switch (event.kind) {
    case "run_start":
      return { ...emptyView(event.limits), contextSize: view.contextSize, startedAt: now, state: "starting" };
    case "model_info":
      return { ...view, contextSize: event.context_size };
    case "model_request":
      return { ...view, steps: event.step, contextUsed: event.estimated_prompt_tokens, state: "streaming", streamPieces: 0, streamStartedAt: now };
    case "model_delta": {
      const seconds = view.streamStartedAt !== null ? (now - view.streamStartedAt) / 1000 : 0;
      return { ...view, streamPieces: event.tokens, tokensPerSecond: seconds > 0.25 ? event.tokens / seconds : view.tokensPerSecond };
    }
    case "model_reply": {
      const prompt = event.prompt_tokens ?? view.contextUsed;
      return {
        ...view,
        promptTokens: view.promptTokens + prompt,
        genTokens: view.genTokens + (event.gen_tokens ?? view.streamPieces),
        contextUsed: prompt + (event.gen_tokens ?? view.streamPieces),
        tokensPerSecond: event.tokens_per_second ?? view.tokensPerSecond,
        // A session saved before these fields existed has them absent: read as not reported.
        reusedShare: typeof event.cached_tokens === "number" && event.prompt_tokens ? event.cached_tokens / event.prompt_tokens : null,
        lastPrefillMs: event.prefill_ms ?? null,
        runPrefillMs: typeof event.prefill_ms === "number" ? (view.runPrefillMs ?? 0) + event.prefill_ms : view.runPrefillMs,
        state: event.tool_calls ? "running tools" : view.state,
        streamStartedAt: null,
      };
    }
    case "tool_call":
      return { ...view, calls: view.calls + (event.decision === "stopped" ? 0 : 1) };
    case "stop":
      return {
        ...view,
        steps: event.steps,
        calls: event.tool_calls,
        promptTokens: event.prompt_tokens,
        genTokens: event.gen_tokens,
        state: `stopped: ${event.status}`,
        endedAt: now,
        streamStartedAt: null,
      };
    default:
      return view;
  }
}

/** The meters, in the order the pane shows them. */
export function meters(view: RunView, now: number): Meter[] {
  const elapsed = view.startedAt === null ? 0 : ((view.endedAt ?? now) - view.startedAt) / 1000;
  // While a reply streams, its pieces so far count, and its prompt as estimated when it was sent;
  // the reply's reported usage replaces both when it ends.
  const streamed = view.streamStartedAt !== null ? view.streamPieces : 0;
  const streamingPrompt = view.streamStartedAt !== null ? view.contextUsed : 0;
  const tokens = view.promptTokens + view.genTokens + streamingPrompt + streamed;
  return [
    { label: "steps", value: view.steps, limit: view.limits.max_steps },
    { label: "calls", value: view.calls, limit: view.limits.max_tool_calls },
    { label: "tokens", value: tokens, limit: view.limits.max_tokens || null },
    { label: "context", value: view.contextUsed + streamed, limit: view.contextSize },
    { label: "time", value: Math.round(elapsed), limit: view.limits.deadline_seconds, unit: "s" },
    { label: "tok/s", value: view.streamStartedAt !== null || view.tokensPerSecond !== null ? Math.round((view.tokensPerSecond ?? 0) * 10) / 10 : 0, limit: null },
    { label: "cache", value: view.reusedShare ?? 0, limit: null, text: cacheText(view.reusedShare, view.lastPrefillMs, view.runPrefillMs) },
  ];
}
