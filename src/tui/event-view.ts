import type { AgentEvent } from "../protocol/events.ts";
import { shownTask } from "./composer/attachments.ts";
import type { MetersPane } from "./panes/meters-pane.ts";
import type { TranscriptPane } from "./panes/transcript-pane.ts";
import type { VerdictsPane } from "./panes/verdicts-pane.ts";

/** What to do when no model server answers: said at start and when a run cannot reach one. */
export const NO_SERVER_FIX = "start llama-server or ollama serve, check --model, or try glassbox --demo";

export interface EventPanes {
  transcript: TranscriptPane;
  verdicts: VerdictsPane;
  meters: MetersPane;
}

type EventOf<K extends AgentEvent["kind"]> = Extract<AgentEvent, { kind: K }>;

/**
 * Draws one agent event (live, or replayed from a saved session) into the panes. Returns what the
 * status line's warning becomes at a stop ("" clears it), undefined for every other event.
 * `changedFiles` counts the files the run changed, for the stop's undo hint.
 */
export function showEvent(event: AgentEvent, panes: EventPanes, changedFiles: () => number): string | undefined {
  if (event.kind === "stop") return showStop(event, panes.transcript, changedFiles);
  if (event.kind === "tool_call") showToolCall(event, panes);
  else if (!showInTranscript(event, panes)) showNote(event, panes.verdicts);
  return undefined;
}

/** The conversation as it streams: the task, the model's words, what the session says around them. False: not the transcript's. */
function showInTranscript(event: AgentEvent, panes: EventPanes): boolean {
  const t = panes.transcript;
  switch (event.kind) {
    case "run_start":
      t.line(`› ${shownTask(event.task)}`, "user");
      panes.meters.startRun();
      return true;
    case "model_request":
      t.newline();
      return true;
    case "model_delta":
      t.append(event.text, event.channel === "thinking" ? "thinking" : "assistant");
      return true;
    case "model_notice":
      t.line(`note: ${event.text}`, "notice");
      panes.verdicts.note(event.text);
      return true;
    case "model_retry":
      t.line(`reconnecting (attempt ${event.attempt}): ${event.reason}`, "notice");
      return true;
    case "model_reply":
      if (event.finish_reason === "length") t.line("[the reply was cut off by the reply cap, max_tokens]", "notice");
      t.newline();
      return true;
    case "server_start":
      t.line(`started llama-server (pid ${event.pid}, port ${event.port}), model loaded in ${(event.load_ms / 1000).toFixed(1)}s; log ${event.log}`, "notice");
      t.line(`window ${event.window} tokens a slot: ${event.window_reason}`, "notice");
      if (event.cache_plan) t.line(`cache: ${event.cache_plan}`, "notice");
      return true;
    case "prompt_drift":
      t.line(`prompt layers differ from prompts.lock: ${event.findings.join("; ")}`, "notice");
      return true;
    case "context_summarized":
      t.line(`[${event.messages} earlier messages replaced by the model's own summary, ${event.chars_before} → ${event.chars_after} chars]`, "notice");
      panes.verdicts.note(`context: summary of ${event.messages} messages, ${event.chars_before} → ${event.chars_after} chars`, "cyan");
      return true;
    case "mcp_untrusted":
    case "tool_quarantined":
    case "tool_not_offered":
      t.line(event.reason, "notice");
      panes.verdicts.note(event.reason, "red");
      return true;
  }
  return false;
}

/** A call: its line and a few lines of its result in the transcript, its verdict in the side pane. */
function showToolCall(event: EventOf<"tool_call">, panes: EventPanes): void {
  const t = panes.transcript;
  // ▸, not ⚙: a glyph that can be an emoji is drawn two cells wide by some terminals, which pushes the border out.
  t.line(`▸ ${event.tool}${event.from_text ? " (written as text)" : ""} ${event.arguments}`, "tool");
  const lines = event.result.split("\n");
  const preview = lines.slice(0, 4).join("\n") + (lines.length > 4 ? `\n… ${lines.length - 4} more lines (${event.result_chars} chars)` : "");
  t.line(`  ${event.decision}: ${preview}`, "result");
  panes.verdicts.add(event);
}

/** The run's decisions beside the conversation: stalls, the gate, budgets, the context, MCP servers, a cut prompt, a cache miss. */
function showNote(event: AgentEvent, verdicts: VerdictsPane): void {
  switch (event.kind) {
    case "stall":
      verdicts.note(`stall ${event.rule}: ${event.message}`, "yellow");
      break;
    case "gate":
      verdicts.note(`gate: finish ${event.allowed ? "allowed" : "refused"}: ${event.reason}`, event.allowed ? "green" : "yellow");
      break;
    case "budget_warning":
      verdicts.note(`budget: the ${event.budget} is nearly used; the model was told to wrap up`, "yellow");
      break;
    case "context_elided":
      verdicts.note(`context: ${event.results} old result(s) cut, ${event.chars_before} → ${event.chars_after} chars`, "cyan");
      break;
    case "mcp_server":
      verdicts.note(`MCP ${event.server}: ${event.state}${event.reason ? `: ${event.reason}` : ""}`, event.state === "running" ? "cyan" : "red");
      break;
    case "cache_miss":
      verdicts.note(`cache: step ${event.step} reused ${event.reused} of ${event.expected} prompt tokens: ${event.cause}`, "yellow");
      break;
    case "truncation_suspected":
      verdicts.note(`server counted ${event.reported_prompt_tokens} prompt tokens of ~${event.estimated_prompt_tokens} sent: prompt probably cut (raise num_ctx)`, "red");
      break;
  }
}

/** The stop line, the undo hint, and what the status line's warning becomes. */
function showStop(event: EventOf<"stop">, t: TranscriptPane, changedFiles: () => number): string {
  t.line(`■ stopped: ${event.status} — ${event.reason}`, "notice");
  const changed = changedFiles();
  if (changed) t.line(`this run changed ${changed} file(s): u on an empty input line undoes them`, "notice");
  if (event.status === "model_error" && /cannot reach|connection refused|does not resolve/.test(event.reason)) {
    // Short enough to fit the status line; the stop line above has the exact error.
    return `no model server answers: ${NO_SERVER_FIX}; Enter retries`;
  }
  // The run's own notices ("stopping the run…", "Ctrl-C again quits") end with it.
  return "";
}
