/** The conversation record: what was said, in the shape every chat API understands. */
export interface ToolCallRequest {
  id: string;
  name: string;
  /** Whatever the model sent: a JSON string from a wire protocol, any JSON value from a script. */
  arguments: unknown;
  /** Recovered from the reply's text, not the protocol's tool-call field. */
  from_text?: true;
}

export type Message =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; thinking?: string; tool_calls?: ToolCallRequest[] }
  | { role: "tool"; tool_call_id: string; name: string; content: string };

/** The arguments as text, the way logs and wire protocols carry them. */
export function argumentsText(args: unknown): string {
  return typeof args === "string" ? args : JSON.stringify(args ?? null);
}

export function messageChars(message: Message): number {
  let chars = message.content.length;
  if (message.role === "assistant") {
    for (const call of message.tool_calls ?? []) chars += call.name.length + argumentsText(call.arguments).length;
  }
  return chars;
}
