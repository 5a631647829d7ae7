import type { Message } from "./messages.ts";

/** The forms a tool call written as text is recognised in, with the names `doctor` gives them. */
export const TEXT_CALL_FORMS = ["json", "tool_call", "function_xml", "mistral", "python_tag", "fenced"] as const;
export type TextCallForm = (typeof TEXT_CALL_FORMS)[number];

/** One call read from text: the name as the model wrote it, the arguments as it wrote them. */
export interface TextCall {
  name: string;
  /** An object, or a JSON string (the checkpoint validates either, like a protocol call's). */
  arguments: unknown;
}

/** What a model is shown of one tool: name, description and the JSON Schema of its arguments. */
export interface ToolDeclaration {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  messages: Message[];
  tools: ToolDeclaration[];
  signal: AbortSignal;
  /** "summary": the context manager asks the model to summarize (a scripted model answers it from its summary replies). */
  purpose?: "summary";
}

/** One piece of a streamed reply. Every adapter turns its wire protocol into these. */
export type ModelDelta =
  /** `chunks`: how many of the server's chunks the text joins (1 when absent), see joinTextDeltas. */
  | { type: "text"; text: string; chunks?: number }
  | { type: "thinking"; text: string; chunks?: number }
  | { type: "tool_call"; index: number; id?: string; name?: string; arguments?: unknown }
  | {
      type: "usage";
      prompt_tokens: number;
      gen_tokens: number;
      tokens_per_second?: number;
      /** Prompt tokens the server took from its cache, and how long it spent on the rest: null when it does not say. */
      cached_tokens?: number | null;
      prefill_ms?: number | null;
      timings?: Record<string, unknown>;
    }
  | { type: "done"; finish_reason: string | null }
  /** Something the user should know about the server, said once (a fallback taken). */
  | { type: "notice"; text: string }
  /** The server could not take the request (restarting, loading its model): it is sent again after a wait (reconnect.ts). */
  | { type: "retry"; attempt: number; reason: string }
  /** After the reply: its text ended with tool calls written as text; `prose` is the text before them. */
  | { type: "text_calls"; form: TextCallForm; prose: string; calls: TextCall[] };

/**
 * Consecutive text (or thinking) deltas of one read from the socket, joined into one: a fast
 * server puts several chunks in each read, and every delta is an event that crosses the loop,
 * the logs and the screen. What the run records is the same; `chunks` keeps the count.
 */
export function joinTextDeltas(deltas: ModelDelta[]): ModelDelta[] {
  const joined: ModelDelta[] = [];
  for (const delta of deltas) {
    const last = joined.at(-1);
    if ((delta.type === "text" || delta.type === "thinking") && last?.type === delta.type) {
      joined[joined.length - 1] = { type: delta.type, text: last.text + delta.text, chunks: (last.chunks ?? 1) + (delta.chunks ?? 1) };
    } else joined.push(delta);
  }
  return joined;
}

/**
 * How tools reach a model: `native`, the request's `tools` and tool-role messages, which the
 * server's chat template renders; `prompted`, the tools described in the system prompt, calls
 * read from the reply's text, results sent back as user turns (for a template that knows no
 * tools). The config's `auto` picks one by what the server's template can do.
 */
export const TOOL_PROTOCOL_SETTINGS = ["auto", "native", "prompted"] as const;
export type ToolProtocolSetting = (typeof TOOL_PROTOCOL_SETTINGS)[number];
export type ToolProtocol = Exclude<ToolProtocolSetting, "auto">;

/** The protocol a model is spoken to in, and why (one clause, for doctor and the notices). */
export interface ToolProtocolChoice {
  protocol: ToolProtocol;
  why: string;
}

export interface ModelClient {
  /** The spec the user gave, for logs and the status line. */
  readonly name: string;
  reply(request: ModelRequest): AsyncIterable<ModelDelta>;
  /** The server's real context window in tokens, when it can tell. */
  contextSize?(signal: AbortSignal): Promise<number | null>;
  /** The prompt's size in tokens as the server counts it (its own template and tokenizer); null when it cannot tell. */
  countPromptTokens?(messages: Message[], tools: ToolDeclaration[], signal: AbortSignal): Promise<number | null>;
  /** Whether the server's chat template renders tools (llama.cpp's chat_template_caps, Ollama's `tools` capability); null when it does not say. */
  templateTools?(signal: AbortSignal): Promise<boolean | null>;
  /** What is known of the server's prompt cache that would explain a miss (a sliding-window model started without --swa-full); null: nothing. */
  cacheNote?(): string | null;
  /** The tool protocol this model is spoken to in (a wrapper that chooses one); absent: native. */
  toolProtocol?(signal: AbortSignal): Promise<ToolProtocolChoice>;
}

/**
 * What a wrapper (text-call recovery, recording) answers of the server's own questions: the same as
 * the model it wraps, so wrapping never hides the window or the prompt's count.
 */
export function serverQuestionsOf(inner: ModelClient): Pick<ModelClient, "contextSize" | "countPromptTokens" | "templateTools" | "cacheNote"> {
  return {
    ...(inner.cacheNote ? { cacheNote: () => inner.cacheNote!() } : {}),
    ...(inner.templateTools ? { templateTools: (signal: AbortSignal) => inner.templateTools!(signal) } : {}),
    ...(inner.contextSize ? { contextSize: (signal: AbortSignal) => inner.contextSize!(signal) } : {}),
    ...(inner.countPromptTokens ? { countPromptTokens: (messages: Message[], tools: ToolDeclaration[], signal: AbortSignal) => inner.countPromptTokens!(messages, tools, signal) } : {}),
  };
}

/** A failure on the model side: it ends the run with a status, never a crash. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly status: "model_error" | "context_limit" = "model_error",
  ) {
    super(message);
    this.name = "ModelError";
  }
}
