import type { StopStatus } from "../protocol/events.ts";
import type { Limits } from "../protocol/limits.ts";
import { ModelError } from "../protocol/model.ts";

/** Why a run ends: its status, in a sentence, and the answer when it is not the last reply's text. */
export interface Stop {
  status: StopStatus;
  reason: string;
  answer?: string;
}

/**
 * Where a run stands, as the stop rules read it. Read lazily and in the rules' order: the clock
 * is asked only when a rule gets that far.
 */
export interface RunStanding {
  readonly steps: number;
  readonly calls: number;
  /** Prompt and generated tokens so far, summaries included. */
  readonly tokens: number;
  readonly elapsedSeconds: number;
  /** The user pressed stop. */
  readonly aborted: boolean;
}

export const USER_STOP: Stop = { status: "interrupted", reason: "the user stopped the run" };

export function pastDeadline(run: RunStanding, limits: Limits): boolean {
  return run.elapsedSeconds >= limits.deadline_seconds;
}

export function deadlineStop(limits: Limits): Stop {
  return { status: "deadline", reason: `the run passed its deadline of ${limits.deadline_seconds}s` };
}

/** Before each request to the model: the user's stop, the deadline, max_steps, max_tokens. */
export function stopBeforeModel(run: RunStanding, limits: Limits): Stop | null {
  if (run.aborted) return USER_STOP;
  if (pastDeadline(run, limits)) return deadlineStop(limits);
  if (run.steps >= limits.max_steps) return { status: "step_limit", reason: `the model replied ${run.steps} times, the most allowed (max_steps)` };
  if (limits.max_tokens > 0 && run.tokens >= limits.max_tokens) {
    return { status: "token_limit", reason: `${run.tokens} tokens used of max_tokens ${limits.max_tokens}` };
  }
  return null;
}

/** Before each request of a sub-run, after the budgets it shares: its own step limit (max_sub_run_steps). */
export function subRunStepStop(steps: number, limit: number | undefined): Stop | null {
  if (limit === undefined || steps < limit) return null;
  return { status: "step_limit", reason: `the sub-run replied ${steps} times, the most a sub-run may (max_sub_run_steps)` };
}

/** Before each tool call: max_tool_calls, the deadline, the user's stop. */
export function stopBeforeCall(run: RunStanding, limits: Limits): Stop | null {
  if (run.calls >= limits.max_tool_calls) {
    return { status: "call_limit", reason: `${run.calls} tool calls made, the most allowed (max_tool_calls)` };
  }
  if (pastDeadline(run, limits)) return deadlineStop(limits);
  if (run.aborted) return USER_STOP;
  return null;
}

/** The `seen`-th call of one tool with the same arguments: past max_repeat the run stops. */
export function repeatStop(tool: string, seen: number, limits: Limits): Stop | null {
  if (seen > limits.max_repeat) {
    return { status: "repeat_limit", reason: `${tool} was called ${seen} times with the same arguments (max_repeat ${limits.max_repeat})` };
  }
  return null;
}

/** A reply that failed: the user's stop and the deadline first (they cut the stream), else the model's own status. */
export function modelFailure(error: unknown, run: RunStanding, limits: Limits): Stop {
  if (run.aborted) return USER_STOP;
  if (pastDeadline(run, limits)) return deadlineStop(limits);
  if (error instanceof ModelError) return { status: error.status, reason: error.message };
  return { status: "model_error", reason: error instanceof Error ? error.message : String(error) };
}

/** More calls in one reply than max_calls_per_reply: each of them is refused with this sentence. */
export function oversizedBatch(batch: number, limits: Limits): string | null {
  return batch > limits.max_calls_per_reply
    ? `this reply asked for ${batch} tool calls and at most ${limits.max_calls_per_reply} are allowed per reply; ask for fewer at a time.`
    : null;
}
