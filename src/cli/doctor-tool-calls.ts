import type { ModelSpec } from "../model/model-spec.ts";
import { recoverTextCalls } from "../model/text-calls/index.ts";
import type { ModelClient, ToolDeclaration, ToolProtocol } from "../protocol/model.ts";
import type { Finding } from "./doctor-finding.ts";
import { capName, cutOffAtCap } from "../core/reply-faults.ts";

/** The probe's one tool: harmless, no arguments, and a question only it answers. */
const PROBE_TOOL: ToolDeclaration = {
  name: "current_time",
  description: "The current date and time (UTC, ISO 8601).",
  parameters: { type: "object", properties: {}, additionalProperties: false },
};
const PROBE_QUESTION = "What time is it now? Call the current_time tool to find out.";

/** What makes a server's chat template render the tools it is offered. */
const TEMPLATE_FIX: Record<Exclude<ModelSpec["kind"], "scripted" | "gguf">, string> = {
  llamacpp: "start llama-server with --jinja, so the model's own chat template renders the tools and its calls are parsed (or give it a template with tools: --chat-template-file)",
  openai: "have the server render tools with the model's chat template and parse its calls (vLLM: --enable-auto-tool-choice --tool-call-parser NAME; llama-server: --jinja)",
  ollama: "use a model whose template declares tools (`ollama show MODEL` lists `tools` under Capabilities), e.g. qwen2.5 or qwen3, or a Modelfile TEMPLATE that renders .Tools",
};

/** What helps when glassbox described the tool in the system prompt (the prompted protocol) and the model did not call it. */
const PROMPTED_FIX = "glassbox speaks to this model in the prompted tool protocol; the probe asked once: run a task and read its transcript to see whether the model calls tools when the task needs them";

/** What helps when the template shows the tools and the model still answers in prose. */
const PROSE_FIX =
  "use a model trained for tool calls (an -Instruct or -Coder build of Qwen2.5, Qwen3, Llama 3.1 or later, Mistral), or one that writes its calls in a text form glassbox recovers (JSON, <tool_call>, <function=…>)";

/** What helps when the reply ran past the cap before the call. */
const CUT_FIX =
  "raise model_options.max_tokens in glassbox.json (a thinking model: or set model_options.think to false), then run doctor again; glassbox tune measures which cap the model needs";

/**
 * doctor's tool-call probe: one request offering one harmless tool. `native` when the server
 * returns a protocol tool call, `text (FORM)` when the model writes the call in its text (glassbox
 * recovers it), `none` when it does neither. `templateTools` is what the server said of its chat
 * template (llama.cpp's `chat_template_caps.supports_tools`, Ollama's `tools` capability; null
 * when it did not say): it tells a template that cannot show the tools from a model that ignores them.
 * A reply the server cut off at the reply cap (`cap` tokens) before any call is said as cut, never
 * as prose: the call may have been on its way.
 */
export async function toolCallProbe(
  model: ModelClient,
  kind: keyof typeof TEMPLATE_FIX,
  templateTools: boolean | null,
  signal: AbortSignal,
  protocol: ToolProtocol = "native",
  cap = 0,
): Promise<Finding> {
  let text = "";
  let native = false;
  let finish: string | null = null;
  try {
    for await (const delta of model.reply({ messages: [{ role: "user", content: PROBE_QUESTION }], tools: [PROBE_TOOL], signal })) {
      if (delta.type === "text") text += delta.text;
      else if (delta.type === "tool_call") native = true;
      else if (delta.type === "done") finish = delta.finish_reason;
    }
  } catch (error) {
    return { ok: false, text: `tool calls: the probe failed: ${(error as Error).message}`, fix: "check the server's log" };
  }
  if (native) return { ok: true, text: "tool calls: native" };
  const recovered = recoverTextCalls(text, [PROBE_TOOL]);
  if (recovered) return { ok: true, text: `tool calls: text (${recovered.form}): the model writes its calls in the reply's text; glassbox recovers them` };
  const quoted = text.trim() ? JSON.stringify(text.trim().slice(0, 60)) : "";
  // A template that cannot show the tools is the finding, cut reply or not: the model never saw them (unless glassbox described them in the prompt).
  if (templateTools === false && protocol !== "prompted") return { ok: false, text: `tool calls: none (the chat template cannot render tools${quoted ? `; the model answered ${quoted}` : ""})`, fix: TEMPLATE_FIX[kind] };
  if (cutOffAtCap({ finish_reason: finish })) {
    return { ok: false, text: `tool calls: not known (the probe's reply was cut off at ${capName(cap)} before any call: it was still writing, not answering in prose)`, fix: CUT_FIX };
  }
  if (protocol === "prompted") return { ok: false, text: `tool calls: none (the tool was described in the system prompt and the model answered in prose${quoted ? `: ${quoted}` : ""})`, fix: PROMPTED_FIX };
  if (templateTools === true) return { ok: false, text: `tool calls: none (the model was offered one tool and answered in prose${quoted ? `: ${quoted}` : ""})`, fix: PROSE_FIX };
  const answered = quoted ? `; it answered ${quoted}` : "";
  return { ok: false, text: `tool calls: none (the model was offered one tool and did not call it${answered})`, fix: `${TEMPLATE_FIX[kind]}; where the template has tools, ${PROSE_FIX}` };
}
