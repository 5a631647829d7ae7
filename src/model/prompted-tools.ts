import { argumentsText, type Message } from "../protocol/messages.ts";
import type { ToolDeclaration } from "../protocol/model.ts";

/** How a call is written under the prompted protocol: the `tool_call` text form glassbox already reads (text-calls/tool-call.ts). */
export function writtenCall(name: string, args: unknown): string {
  const text = argumentsText(args);
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Arguments that are not JSON are shown as the model sent them, as a string.
  }
  return `<tool_call>\n${JSON.stringify({ name, arguments: parsed })}\n</tool_call>`;
}

/**
 * The tools as the system prompt describes them under the prompted protocol: how to call one
 * (the `<tool_call>` form), where its result comes back, and each tool's name, description and
 * argument schema, in the order offered (the same every request: the prompt's prefix stays cached).
 */
export function toolsPrompt(tools: readonly ToolDeclaration[]): string {
  const lines = [
    "# Tools",
    "",
    "You can call the tools below. To call one, end your reply with a block like this (one block per call, nothing after the last):",
    writtenCall("TOOL_NAME", { ARGUMENT: "VALUE" }),
    'Each result comes back in the next user message, starting "Result of TOOL_NAME:". Call a tool whenever the task needs one; answer in plain text when it is done.',
    "",
    "Available tools (arguments as JSON Schema):",
  ];
  for (const tool of tools) lines.push(`- ${tool.name}: ${tool.description.trim()}`, `  arguments: ${JSON.stringify(tool.parameters)}`);
  return lines.join("\n");
}

/** A tool's result as the user turn that carries it back. */
export function resultTurn(name: string, content: string): string {
  return `Result of ${name}:\n${content}`;
}

/**
 * The conversation as a template that knows no tools can render it: one leading system message
 * (the tools described at its end), then user and assistant turns strictly alternating, starting
 * with a user turn. Assistant calls are written into the assistant's text, tool results become
 * user turns, later system messages (nudges) become user turns, and turns of the same role in a
 * row are joined with a blank line. Nothing the record holds is lost.
 */
export function promptedMessages(messages: readonly Message[], tools: readonly ToolDeclaration[]): Message[] {
  const leading = messages[0]?.role === "system" ? messages[0].content : "";
  const system = [leading, tools.length ? toolsPrompt(tools) : ""].filter(Boolean).join("\n\n");
  const turns: Array<{ role: "user" | "assistant"; content: string }> = [];
  const add = (role: "user" | "assistant", content: string) => {
    const last = turns.at(-1);
    if (last?.role === role) last.content = [last.content, content].filter(Boolean).join("\n\n");
    else turns.push({ role, content });
  };
  for (const message of messages.slice(leading || messages[0]?.role === "system" ? 1 : 0)) {
    if (message.role === "assistant") add("assistant", [message.content, ...(message.tool_calls ?? []).map((call) => writtenCall(call.name, call.arguments))].filter(Boolean).join("\n"));
    else if (message.role === "tool") add("user", resultTurn(message.name, message.content));
    else add("user", message.content);
  }
  if (turns[0]?.role === "assistant") turns.unshift({ role: "user", content: "(The conversation so far follows.)" });
  return [...(system ? [{ role: "system" as const, content: system }] : []), ...turns];
}
