import { withTextCalls } from "./text-call-model.ts";
import { promptedMessages } from "./prompted-tools.ts";
import type { Message } from "../protocol/messages.ts";
import {
  ModelError,
  type ModelClient,
  type ModelDelta,
  type ModelRequest,
  type ToolDeclaration,
  type ToolProtocolChoice,
  type ToolProtocolSetting,
} from "../protocol/model.ts";

/**
 * What a server says when its chat template cannot take tools or tool-role messages: llama.cpp
 * (b11669, a template that raises on roles out of turn: `400 Unable to generate parser for this
 * template. … Conversation roles must alternate user/assistant/user/assistant/...`) and Ollama
 * (`400 … does not support tools`).
 */
const REFUSES_TOOLS = /Unable to generate parser for this template|roles must alternate|does not support tools/i;

/** Whether a model's failure is its server refusing the tools or tool roles of a native request. */
export function refusesTools(error: unknown): boolean {
  return error instanceof ModelError && REFUSES_TOOLS.test(error.message);
}

/**
 * Speaks one tool protocol to the model it wraps (outermost, over text-call recovery): `native`
 * passes requests through; `prompted` sends the conversation as promptedMessages makes it, with
 * no `tools`, and reads the calls from the reply's text. `auto` asks the server whether its chat
 * template has tools (no: prompted), and a native request the server refuses for its tools or
 * tool roles switches it to prompted, said once as a notice, and is sent again that way.
 */
export class ToolProtocolModel implements ModelClient {
  readonly contextSize?: ModelClient["contextSize"];
  readonly cacheNote?: ModelClient["cacheNote"];
  private choice: Promise<ToolProtocolChoice> | null = null;

  constructor(
    private readonly inner: ModelClient,
    private readonly setting: ToolProtocolSetting,
  ) {
    if (inner.contextSize) this.contextSize = (signal) => inner.contextSize!(signal);
    if (inner.cacheNote) this.cacheNote = () => inner.cacheNote!();
  }

  get name(): string {
    return this.inner.name;
  }

  toolProtocol(signal: AbortSignal): Promise<ToolProtocolChoice> {
    this.choice ??= this.choose(signal);
    this.choice.catch(() => (this.choice = null));
    return this.choice;
  }

  async templateTools(signal: AbortSignal): Promise<boolean | null> {
    return this.inner.templateTools ? this.inner.templateTools(signal) : null;
  }

  async countPromptTokens(messages: Message[], tools: ToolDeclaration[], signal: AbortSignal): Promise<number | null> {
    if (!this.inner.countPromptTokens) return null;
    const { protocol } = await this.toolProtocol(signal);
    return protocol === "prompted" ? this.inner.countPromptTokens(promptedMessages(messages, tools), [], signal) : this.inner.countPromptTokens(messages, tools, signal);
  }

  async *reply(request: ModelRequest): AsyncIterable<ModelDelta> {
    const { protocol } = await this.toolProtocol(request.signal);
    if (protocol === "prompted") return yield* this.prompted(request);
    let said = false;
    try {
      for await (const delta of this.inner.reply(request)) {
        said = true;
        yield delta;
      }
    } catch (error) {
      if (said || this.setting !== "auto" || !refusesTools(error)) throw error;
      const reason = (error as Error).message.replace(/\s+/g, " ").slice(0, 160);
      this.choice = Promise.resolve({ protocol: "prompted", why: `the server refused a request with tools or tool roles (${reason})` });
      yield { type: "notice", text: "the server's chat template refused the tools or tool roles of a native request: glassbox speaks the prompted tool protocol to it from now on (tools in the system prompt, calls read from the reply's text)" };
      yield* this.prompted(request);
    }
  }

  private prompted(request: ModelRequest): AsyncIterable<ModelDelta> {
    return withTextCalls(this.inner.reply({ ...request, messages: promptedMessages(request.messages, request.tools), tools: [] }), request.tools);
  }

  private async choose(signal: AbortSignal): Promise<ToolProtocolChoice> {
    if (this.setting !== "auto") return { protocol: this.setting, why: `tool_protocol is "${this.setting}" in the config` };
    const tools = this.inner.templateTools ? await this.inner.templateTools(signal) : null;
    if (tools === false) return { protocol: "prompted", why: "the server's chat template has no tools" };
    if (tools === true) return { protocol: "native", why: "the server's chat template renders tools" };
    return { protocol: "native", why: "the server does not say whether its chat template has tools; prompted if it refuses tool roles" };
  }
}
