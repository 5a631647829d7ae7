import type { AgentEvent } from "../protocol/events.ts";
import { questionOf } from "../core/sub-run.ts";
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
  /** The sub-runs being drawn: each one folded entry of the transcript. */
  subRuns: SubRunEntries;
}

type EventOf<K extends AgentEvent["kind"]> = Extract<AgentEvent, { kind: K }>;

/**
 * Draws one agent event (live, or replayed from a saved session) into the panes. Returns what the
 * status line's warning becomes at a stop ("" clears it), undefined for every other event.
 * `changedFiles` counts the files the run changed, for the stop's undo hint.
 */
export function showEvent(event: AgentEvent, panes: EventPanes, changedFiles: () => number): string | undefined {
  if (event.sub_run !== undefined) return void panes.subRuns.show(event, event.sub_run, panes);
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
  t.line(callLine(event), "tool");
  t.line(resultPreview(event), "result");
  panes.verdicts.add(event);
}

// ▸, not ⚙: a glyph that can be an emoji is drawn two cells wide by some terminals, which pushes the border out.
function callLine(event: EventOf<"tool_call">): string {
  return `▸ ${event.tool}${event.from_text ? " (written as text)" : ""} ${event.arguments}`;
}

function resultPreview(event: EventOf<"tool_call">): string {
  const lines = event.result.split("\n");
  const preview = lines.slice(0, 4).join("\n") + (lines.length > 4 ? `\n… ${lines.length - 4} more lines (${event.result_chars} chars)` : "");
  return `  ${event.decision}: ${preview}`;
}

/** How far a sub-run has come, for its entry's header. */
interface SubRunProgress {
  question: string;
  steps: number;
  calls: number;
  /** The reply streaming now: its text joins the entry when the reply ends. */
  text: string;
}

/** Where the header says how to read a closed entry's steps. */
const UNFOLD_HINT = "in the transcript, Enter unfolds or folds it";

/**
 * A sub-run in the panes: one folded entry in the transcript, whose header says how it stands
 * (live, while it runs) and whose lines are its steps (its replies, calls, results and stop),
 * shown under the header once it is unfolded; its calls in the verdicts pane, marked as its own.
 * The meters follow its events too (run-view.ts): its steps and calls are the run's.
 */
export class SubRunEntries {
  private readonly entries = new Map<string, SubRunProgress>();

  show(event: AgentEvent, id: string, panes: Pick<EventPanes, "transcript" | "verdicts">): void {
    const t = panes.transcript;
    if (event.kind === "run_start") {
      const entry: SubRunProgress = { question: questionOf(event.task), steps: 0, calls: 0, text: "" };
      this.entries.set(id, entry);
      return t.openFold(id, header(entry, "running"));
    }
    const entry = this.entries.get(id);
    if (!entry) return;
    const add = (text: string, voice: Parameters<TranscriptPane["addToFold"]>[2]) => t.addToFold(id, text.replace(/^/gm, "│ "), voice);
    switch (event.kind) {
      case "model_request":
        entry.steps++;
        entry.text = "";
        return t.setFoldHeader(id, header(entry, "running"));
      case "model_delta":
        if (event.channel === "text") entry.text += event.text;
        return;
      case "model_reply":
        if (entry.text.trim()) add(entry.text.trim(), "assistant");
        return;
      case "tool_call":
        if (event.decision !== "stopped") entry.calls++;
        add(callLine(event), "tool");
        add(resultPreview(event), "result");
        panes.verdicts.add(event);
        return t.setFoldHeader(id, header(entry, "running"));
      case "stop":
        this.entries.delete(id);
        add(`■ ${event.status} — ${event.reason}`, "notice");
        return t.setFoldHeader(id, header(entry, event.status));
      case "stall":
      case "context_summarized":
      case "context_elided":
        add(event.kind === "stall" ? `stall ${event.rule}: ${event.message}` : `context: ${event.kind === "context_elided" ? `${event.results} old result(s) cut` : `${event.messages} messages summarized`}`, "notice");
    }
  }
}

/** A sub-run entry's header: its question, how it stands, its steps and calls, and how to unfold it. */
function header(entry: SubRunProgress, state: string): string {
  const question = entry.question.length > 100 ? `${entry.question.slice(0, 99)}…` : entry.question;
  return `explore: ${question} · sub-run ${state}, ${entry.steps} step(s), ${entry.calls} call(s) (${UNFOLD_HINT})`;
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
