import { TextPieces } from "./text-pieces.ts";
import { recoverTextCalls } from "./text-calls/index.ts";
import { serverQuestionsOf, type ModelClient, type ModelDelta, type ModelRequest, type ToolDeclaration } from "../protocol/model.ts";

/**
 * Wraps any model so tool calls written in its reply's text reach the loop as calls: every
 * delta passes through as it streams (the wire log, inside the adapter, keeps the raw text), and
 * when a reply with no protocol tool call ends with calls in a known form, one `text_calls` delta
 * follows. Only the text channel is read, never thinking.
 */
export class TextCallModel implements ModelClient {
  readonly contextSize?: ModelClient["contextSize"];
  readonly countPromptTokens?: ModelClient["countPromptTokens"];
  readonly templateTools?: ModelClient["templateTools"];
  readonly cacheNote?: ModelClient["cacheNote"];

  constructor(private readonly inner: ModelClient) {
    Object.assign(this, serverQuestionsOf(inner));
  }

  get name(): string {
    return this.inner.name;
  }

  reply(request: ModelRequest): AsyncIterable<ModelDelta> {
    return withTextCalls(this.inner.reply(request), request.tools);
  }
}

/**
 * A reply's deltas passed through as they stream, then, when it carried no protocol tool call and
 * its text ends with calls of the `offered` tools in a known form, one `text_calls` delta.
 */
export async function* withTextCalls(deltas: AsyncIterable<ModelDelta>, offered: readonly ToolDeclaration[]): AsyncIterable<ModelDelta> {
  // Compacted as it comes: a million tokens kept as a million strings cost several times the text.
  const text = new TextPieces();
  let protocolCalls = false;
  for await (const delta of deltas) {
    if (delta.type === "text") text.add(delta.text);
    else if (delta.type === "tool_call") protocolCalls = true;
    yield delta;
  }
  if (protocolCalls) return;
  const recovered = recoverTextCalls(text.take(), offered);
  if (recovered) yield { type: "text_calls", ...recovered };
}
