import type { SandboxInfo } from "./sandbox-info.ts";
import type { Limits } from "./limits.ts";
import type { ToolProtocol } from "./model.ts";

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
  "truncated",
  "disk_full",
] as const;
export type StopStatus = (typeof STOP_STATUSES)[number];

/** One workspace path a command changed (CONTRACT.md: a rename is `deleted` + `created`). */
export interface WorkspaceChange {
  path: string;
  change: "created" | "changed" | "deleted" | "mode";
}

/**
 * Everything the loop does, as one stream. The log, the printer, the TUI and tests all read it.
 * A sub-run's events (explore) are in the same stream, each with `sub_run`: the parent's call id.
 */
export type AgentEvent = SubRunTagged<
  | {
      kind: "run_start";
      run_id: string;
      model: string;
      workspace: string;
      limits: Limits;
      tools: string[];
      task: string;
      started_at: string;
      /** Which prompt produced this run: each layer's name, origin and digest, in order. */
      prompt_layers: Array<{ name: string; origin: string; digest: string }>;
      /** How checks are confined (absent when the loop runs without a session, as in unit tests). */
      sandbox?: SandboxInfo;
      /** How tools reach the model: the request's tools and tool roles, or described in the system prompt (a template that knows none). */
      tool_protocol: ToolProtocol;
      /** The model profile applied (`glassbox tune` wrote it): its file and the settings that took effect; null: none. Absent without a session. */
      profile?: { path: string; settings: Record<string, unknown> } | null;
    }
  /** The prompt layers differ from the workspace's prompts.lock (one line per finding). */
  | { kind: "prompt_drift"; findings: string[] }
  | { kind: "model_request"; step: number; messages: number; transcript_chars: number; estimated_prompt_tokens: number }
  /** The server's real context window, once it is known. */
  | { kind: "model_info"; context_size: number }
  | { kind: "model_notice"; step: number; text: string }
  /** The server could not take the request (connection refused or reset, `503 Loading model`): it is sent again after a wait. */
  | { kind: "model_retry"; step: number; attempt: number; reason: string }
  /** `tokens`: pieces received so far in this reply, for live meters. */
  | { kind: "model_delta"; step: number; channel: "text" | "thinking"; text: string; tokens: number }
  /**
   * The server ended its stream: every delta of the reply has come. model_reply follows once the
   * reply is assembled and logged (text-form calls recovered, the wire log written), which for a
   * long reply takes milliseconds a screen need not wait for.
   */
  | { kind: "model_done"; step: number; finish_reason: string | null }
  | {
      kind: "model_reply";
      step: number;
      text: string;
      text_chars: number;
      tool_calls: number;
      prompt_tokens: number | null;
      gen_tokens: number | null;
      tokens_per_second: number | null;
      finish_reason: string | null;
      /** Prompt tokens the server reused from its cache, and its prefill time: null when it does not say. */
      cached_tokens: number | null;
      prefill_ms: number | null;
    }
  /**
   * The server reused far less of the prompt than the conversation allowed: `reused` is its own
   * count (`timings.cache_n`), `expected` what it could have kept (the previous prompt, or the part
   * before the first message that changed), `cause` the likely reason, in a sentence.
   */
  | { kind: "cache_miss"; step: number; reused: number; expected: number; cause: string }
  /** The server counted far fewer prompt tokens than were sent: it probably cut the front off. */
  | { kind: "truncation_suspected"; step: number; estimated_prompt_tokens: number; reported_prompt_tokens: number }
  | {
      kind: "tool_call";
      step: number;
      id: string;
      tool: string;
      arguments: string;
      decision: Decision;
      reason: string;
      result_chars: number;
      /** Exactly what the model was sent back (already clipped). */
      result: string;
      /** The call was written in the reply's text, not the protocol's tool-call field. */
      from_text?: true;
      /** run_command and run_check: the workspace files it changed, each in the undo journal ([] when none). */
      changes?: WorkspaceChange[];
      /** run_command and run_check: files in git-ignored folders it wrote, not journaled. */
      ignored_changes?: number;
    }
  /** A stall rule fired; `message` is what the model is told after the turn's tool results. */
  | { kind: "stall"; rule: string; message: string }
  /** The verification gate's decision on a `finish`. */
  | { kind: "gate"; allowed: boolean; reason: string }
  | { kind: "budget_warning"; budget: "deadline" | "tokens" }
  /** The plan, after update_todo changed it. */
  | { kind: "todo"; items: Array<{ text: string; status: string }> }
  /** Old tool results cut in the view sent to the model (the record keeps them whole). */
  | {
      kind: "context_elided";
      results: number;
      chars_before: number;
      chars_after: number;
      /** The elided results' tool_call_ids and the length they were cut to: kept from then on, and restored with the session. */
      ids: string[];
      cap: number;
    }
  /** The middle of the conversation replaced, in the view, by a summary the model wrote. */
  | {
      kind: "context_summarized";
      messages: number;
      chars_before: number;
      chars_after: number;
      /** The record index where the kept tail begins, and the message standing for the middle: restored with the session. */
      up_to: number;
      note: string;
    }
  /** Internal tool failures: the model is told only that the tool failed; the detail lives here. */
  | { kind: "tool_error"; step: number; id: string; tool: string; detail: string }
  /** An MCP server started, failed (with why), or was restarted after a crash. */
  | { kind: "mcp_server"; server: string; state: string; tools: number; reason: string }
  /** A workspace-defined MCP server was not started: nobody trusted this exact definition. */
  | { kind: "mcp_untrusted"; server: string; file: string; hash: string; reason: string }
  /**
   * glassbox started llama-server for a gguf: model: its command line (the flags added for the
   * model's architecture included), pid, port, time to load, log (workspace-relative), the window
   * per slot and why, and what was chosen for the prompt cache with its memory.
   */
  | { kind: "server_start"; command: string[]; pid: number; port: number; load_ms: number; log: string; window: number; window_reason: string; cache_plan?: string }
  /** An MCP tool was not offered: its definition differs from prompts.lock, or changed during the session. */
  | { kind: "tool_quarantined"; tool: string; server: string; digest: string; locked: string | null; reason: string }
  /** An MCP tool was not offered because it cannot be checked (a schema that does not compile, over a cap, a bad name). */
  | { kind: "tool_not_offered"; tool: string; server: string; reason: string }
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
      /** What of the counts above the run's sub-runs spent (present once one ran): steps, calls, tokens. */
      sub_runs?: SubRunTotals;
    }
>;

/** Each kind of event with `sub_run` beside its own fields: the parent's `explore` call id, on every event of a sub-run (its run_start and stop included). */
type SubRunTagged<Event> = Event extends unknown ? Flat<Event & { sub_run?: string }> : never;

/** One object type of an intersection's fields (optional ones stay optional): kinds narrow on `kind` as a plain union's do. */
type Flat<T> = { [K in keyof T]: T[K] };

/** A run's sub-runs, together: how many, and what they spent of the budgets they share with it. */
export interface SubRunTotals {
  runs: number;
  steps: number;
  tool_calls: number;
  prompt_tokens: number;
  gen_tokens: number;
}

/** The events of the run itself, not of a sub-run: a consumer that wants the run's own stop reads these. */
export function ownEvent(event: AgentEvent): boolean {
  return event.sub_run === undefined;
}

export type EventOf<K extends AgentEvent["kind"]> = Extract<AgentEvent, { kind: K }>;
