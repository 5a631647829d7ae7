import type { Limits } from "./limits.ts";

export const DECISIONS = ["allowed", "refused", "denied", "error", "stopped"] as const;
export type Decision = (typeof DECISIONS)[number];

export const STOP_STATUSES = [
  "completed",
  "step_limit",
  "call_limit",
  "repeat_limit",
  "deadline",
  "context_limit",
  "token_limit",
  "model_error",
  "interrupted",
] as const;
export type StopStatus = (typeof STOP_STATUSES)[number];

/** Everything the loop does, as one stream. The log, the printer, the TUI and tests all read it. */
export type AgentEvent =
  | {
      kind: "run_start";
      run_id: string;
      model: string;
      workspace: string;
      limits: Limits;
      tools: string[];
      task: string;
      started_at: string;
    }
  | { kind: "model_request"; step: number; messages: number; transcript_chars: number }
  | { kind: "model_delta"; step: number; channel: "text" | "thinking"; text: string }
  | {
      kind: "model_reply";
      step: number;
      text: string;
      text_chars: number;
      tool_calls: number;
      prompt_tokens: number | null;
      gen_tokens: number | null;
      finish_reason: string | null;
    }
  | {
      kind: "tool_call";
      step: number;
      id: string;
      tool: string;
      arguments: string;
      decision: Decision;
      reason: string;
      result_chars: number;
    }
  /** Internal tool failures: the model is told only that the tool failed; the detail lives here. */
  | { kind: "tool_error"; step: number; id: string; tool: string; detail: string }
  | {
      kind: "stop";
      status: StopStatus;
      steps: number;
      tool_calls: number;
      answer: string;
      reason: string;
      elapsed_ms: number;
      prompt_tokens: number;
      gen_tokens: number;
    };

export type EventOf<K extends AgentEvent["kind"]> = Extract<AgentEvent, { kind: K }>;
