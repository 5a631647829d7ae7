import { READ_ONLY_ASKS } from "../core/policy.ts";
import type { SandboxInfo } from "../sandbox/sandbox.ts";
import type { AgentEvent } from "../protocol/events.ts";

/** One readable line per event for headless runs without --json; null for events not worth a line. A sub-run's are indented under its explore call. */
export function formatEvent(event: AgentEvent): string | null {
  if (event.sub_run !== undefined) return subRunLine(event, event.sub_run);
  switch (event.kind) {
    case "run_start":
      return `glassbox run ${event.run_id} · model ${event.model}${event.tool_protocol === "prompted" ? " (tools in the prompt: the prompted tool protocol)" : ""}${event.profile ? ` · profile ${event.profile.path}` : ""} · workspace ${event.workspace}${sandboxNote(event.sandbox)}`;
    case "model_reply": {
      const tokens = event.prompt_tokens !== null ? ` (${event.prompt_tokens} prompt + ${event.gen_tokens} generated tokens)` : "";
      const text = event.text ? `: ${oneLine(event.text, 200)}` : "";
      const cut = event.finish_reason === "length" ? " [cut off by the reply cap, max_tokens]" : "";
      return `[${event.step}] model: ${event.tool_calls} tool call(s)${tokens}${cut}${text}`;
    }
    case "prompt_drift":
      return `warning: the prompt layers differ from prompts.lock (glassbox audit --check):\n  ${event.findings.join("\n  ")}`;
    case "stall":
      return `stall (${event.rule}): ${event.message}`;
    case "gate":
      return `gate: finish ${event.allowed ? "allowed" : "refused"}: ${event.reason}`;
    case "budget_warning":
      return `warning: the ${event.budget === "deadline" ? "time" : "token"} budget passed its warning mark (budget_warning.ratio); the model was told to wrap up`;
    case "todo":
      return `todo: ${event.items.map((item) => `[${item.status}] ${item.text}`).join(" · ")}`;
    case "context_elided":
      return `context: ${event.results} old tool result(s) cut in the view, ${event.chars_before} → ${event.chars_after} chars`;
    case "context_summarized":
      return `context: ${event.messages} message(s) replaced by the model's summary, ${event.chars_before} → ${event.chars_after} chars`;
    case "model_info":
      return `server context window: ${event.context_size} tokens`;
    case "server_start":
      return `started llama-server (pid ${event.pid}, port ${event.port}), model loaded in ${(event.load_ms / 1000).toFixed(1)}s; log ${event.log}\n  ${event.command.join(" ")}\n  window ${event.window} tokens a slot: ${event.window_reason}${event.cache_plan ? `\n  cache: ${event.cache_plan}` : ""}`;
    case "model_notice":
      return `[${event.step}] note: ${event.text}`;
    case "model_retry":
      return `[${event.step}] reconnecting (attempt ${event.attempt}): ${event.reason}`;
    case "cache_miss":
      return `[${event.step}] cache: the server reused ${event.reused} of ${event.expected} prompt tokens it could have kept: ${event.cause}`;
    case "truncation_suspected":
      return `[${event.step}] warning: the server counted ${event.reported_prompt_tokens} prompt tokens but about ${event.estimated_prompt_tokens} were sent; it probably cut the front of the prompt (raise num_ctx)`;
    case "tool_call": {
      const reason = event.reason ? `: ${event.reason}` : ` (${event.result_chars} chars)`;
      return `[${event.step}] ${event.tool}${event.from_text ? " (written as text)" : ""} ${oneLine(event.arguments, 120)} → ${event.decision}${reason}`;
    }
    case "mcp_server":
      return `MCP server ${event.server}: ${event.state}, ${event.tools} tool(s)${event.reason ? ` — ${event.reason}` : ""}`;
    case "mcp_untrusted":
    case "tool_quarantined":
    case "tool_not_offered":
      return `warning: ${event.reason}`;
    case "tool_error":
      return `[${event.step}] ${event.tool} failed internally: ${oneLine(event.detail, 300)}`;
    case "stop": {
      const seconds = (event.elapsed_ms / 1000).toFixed(1);
      const head = `stop: ${event.status} after ${event.steps} step(s), ${event.tool_calls} tool call(s), ${seconds}s — ${event.reason}`;
      return event.answer ? `${head}\n\n${event.answer}` : head;
    }
    default:
      return null;
  }
}

/** A sub-run's event: opened and closed with its explore call's id, its lines between them indented. */
function subRunLine(event: AgentEvent, id: string): string | null {
  if (event.kind === "run_start") return `  ┌ explore ${id}: a sub-run with ${event.tools.length} read-only tools`;
  if (event.kind === "stop") {
    return `  └ explore ${id}: ${event.status} after ${event.steps} step(s), ${event.tool_calls} tool call(s), ${(event.elapsed_ms / 1000).toFixed(1)}s — ${event.reason}`;
  }
  const line = formatEvent({ ...event, sub_run: undefined });
  return line === null ? null : line.replace(/^/gm, "  │ ");
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max - 1) + "…" : flat;
}

function sandboxNote(sandbox: SandboxInfo | undefined): string {
  if (!sandbox) return "";
  return sandbox.kind === "none" ? ` · checks UNSANDBOXED (${sandbox.reason}) · ${READ_ONLY_ASKS}` : ` · sandbox ${sandbox.kind}, net ${sandbox.network ? "on" : "off"}`;
}
