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

/**
 * Draws one agent event (live, or replayed from a saved session) into the panes. Returns what the
 * status line's warning becomes at a stop ("" clears it), undefined for every other event.
 * `changedFiles` counts the files the run changed, for the stop's undo hint.
 */
export function showEvent(event: AgentEvent, panes: EventPanes, changedFiles: () => number): string | undefined {
  const t = panes.transcript;
    switch (event.kind) {
      case "run_start":
        t.line(`› ${shownTask(event.task)}`, "user");
        panes.meters.startRun();
        break;
      case "model_request":
        t.newline();
        break;
      case "model_delta":
        t.append(event.text, event.channel === "thinking" ? "thinking" : "assistant");
        break;
      case "model_notice":
        t.line(`note: ${event.text}`, "notice");
        panes.verdicts.note(event.text);
        break;
      case "model_retry":
        t.line(`reconnecting (attempt ${event.attempt}): ${event.reason}`, "notice");
        break;
      case "model_reply":
        if (event.finish_reason === "length") t.line("[the reply was cut off by the reply cap, max_tokens]", "notice");
        t.newline();
        break;
      case "tool_call": {
        // ▸, not ⚙: a glyph that can be an emoji is drawn two cells wide by some terminals, which pushes the border out.
        t.line(`▸ ${event.tool}${event.from_text ? " (written as text)" : ""} ${event.arguments}`, "tool");
        const lines = event.result.split("\n");
        const preview = lines.slice(0, 4).join("\n") + (lines.length > 4 ? `\n… ${lines.length - 4} more lines (${event.result_chars} chars)` : "");
        t.line(`  ${event.decision}: ${preview}`, "result");
        panes.verdicts.add(event);
        break;
      }
      case "stall":
        panes.verdicts.note(`stall ${event.rule}: ${event.message}`, "yellow");
        break;
      case "gate":
        panes.verdicts.note(`gate: finish ${event.allowed ? "allowed" : "refused"}: ${event.reason}`, event.allowed ? "green" : "yellow");
        break;
      case "budget_warning":
        panes.verdicts.note(`budget: the ${event.budget} is nearly used; the model was told to wrap up`, "yellow");
        break;
      case "context_elided":
        panes.verdicts.note(`context: ${event.results} old result(s) cut, ${event.chars_before} → ${event.chars_after} chars`, "cyan");
        break;
      case "context_summarized":
        t.line(`[${event.messages} earlier messages replaced by the model's own summary, ${event.chars_before} → ${event.chars_after} chars]`, "notice");
        panes.verdicts.note(`context: summary of ${event.messages} messages, ${event.chars_before} → ${event.chars_after} chars`, "cyan");
        break;
      case "server_start":
        t.line(`started llama-server (pid ${event.pid}, port ${event.port}), model loaded in ${(event.load_ms / 1000).toFixed(1)}s; log ${event.log}`, "notice");
        break;
      case "prompt_drift":
        t.line(`prompt layers differ from prompts.lock: ${event.findings.join("; ")}`, "notice");
        break;
      case "mcp_server":
        panes.verdicts.note(`MCP ${event.server}: ${event.state}${event.reason ? `: ${event.reason}` : ""}`, event.state === "running" ? "cyan" : "red");
        break;
      case "mcp_untrusted":
      case "tool_quarantined":
      case "tool_not_offered":
        t.line(event.reason, "notice");
        panes.verdicts.note(event.reason, "red");
        break;
      case "truncation_suspected":
        panes.verdicts.note(`server counted ${event.reported_prompt_tokens} prompt tokens of ~${event.estimated_prompt_tokens} sent: prompt probably cut (raise num_ctx)`, "red");
        break;
      case "stop": {
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
    }
  return undefined;
}
