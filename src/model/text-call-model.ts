import { TextPieces } from "./text-pieces.ts";
import { recoverTextCalls } from "./text-calls/index.ts";
import { serverQuestionsOf, type ModelClient, type ModelDelta, type ModelRequest } from "../protocol/model.ts";

/**
 * Wraps any model so tool calls written in its reply's text reach the loop as calls: every
 * delta passes through as it streams (the wire log, inside the adapter, keeps the raw text), and
 * when a reply with no protocol tool call ends with calls in a known form, one `text_calls` delta
 * follows. Only the text channel is read, never thinking.
 */
export class TextCallModel implements ModelClient {
  readonly contextSize?: ModelClient["contextSize"];
  readonly countPromptTokens?: ModelClient["countPromptTokens"];

  constructor(private readonly inner: ModelClient) {
    Object.assign(this, serverQuestionsOf(inner));
  }

  get name(): string {
    return this.inner.name;
  }

  async *reply(request: ModelRequest): AsyncIterable<ModelDelta> {
    // Compacted as it comes: a million tokens kept as a million strings cost several times the text.
    const text = new TextPieces();
    let protocolCalls = false;
    for await (const delta of this.inner.reply(request)) {
      if (delta.type === "text") text.add(delta.text);
      else if (delta.type === "tool_call") protocolCalls = true;
      yield delta;
    }
    if (protocolCalls) return;
    const recovered = recoverTextCalls(text.take(), request.tools);
    if (recovered) yield { type: "text_calls", ...recovered };
  }
}
