import type { AgentEvent } from "../core/events.ts";

/** One readable line per event for headless runs without --json; null for events not worth a line. */
export function formatEvent(event: AgentEvent): string | null {
  switch (event.kind) {
    case "run_start":
      return `glassbox run ${event.run_id} · model ${event.model} · workspace ${event.workspace}`;
    case "model_reply": {
      const tokens = event.prompt_tokens !== null ? ` (${event.prompt_tokens} prompt + ${event.gen_tokens} generated tokens)` : "";
      const text = event.text ? `: ${oneLine(event.text, 200)}` : "";
      return `[${event.step}] model: ${event.tool_calls} tool call(s)${tokens}${text}`;
    }
    case "tool_call": {
      const reason = event.reason ? `: ${event.reason}` : ` (${event.result_chars} chars)`;
      return `[${event.step}] ${event.tool} ${oneLine(event.arguments, 120)} → ${event.decision}${reason}`;
    }
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

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max - 1) + "…" : flat;
}
