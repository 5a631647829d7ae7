import { ReplyBuilder } from "./reply.ts";
import type { WireLog } from "../trace/wire-log.ts";
import type { ModelDelta } from "../protocol/model.ts";

/**
 * Wraps one streamed reply so the wire log holds the request before it is sent and the assembled
 * response (or the error) after. `status` is read when the reply ends.
 */
export async function* loggedReply(
  wire: WireLog | undefined,
  url: string,
  body: string,
  status: () => number,
  deltas: () => AsyncGenerator<ModelDelta>,
): AsyncGenerator<ModelDelta> {
  const seq = wire?.request(url, body) ?? 0;
  const builder = new ReplyBuilder();
  let timings: Record<string, unknown> | undefined;
  try {
    for await (const delta of deltas()) {
      builder.add(delta);
      if (delta.type === "usage") timings = delta.timings;
      yield delta;
    }
  } catch (error) {
    wire?.response({ seq, url, status: status(), ok: false, error: error instanceof Error ? error.message : String(error) });
    throw error;
  }
  const reply = builder.result(seq);
  wire?.response({
    seq,
    url,
    status: status(),
    ok: true,
    message: { content: reply.content, thinking: reply.thinking, tool_calls: reply.tool_calls },
    finish_reason: reply.finish_reason,
    usage: reply.prompt_tokens !== null ? { prompt_tokens: reply.prompt_tokens, gen_tokens: reply.gen_tokens ?? 0 } : null,
    timings,
  });
}
