import { ReplyBuilder } from "../../src/model/reply.ts";
import type { ModelClient, ModelDelta, ModelRequest } from "../../src/protocol/model.ts";

/** Every delta a model gave for one request, and the error it ended with (null if none). */
export function collect(model: ModelClient, request: ModelRequest): Promise<{ deltas: ModelDelta[]; error: Error | null }> {
  return drain(model.reply(request));
}

/** Every delta of a stream of them, and the error it ended with (null if none). */
export async function drain(stream: AsyncIterable<ModelDelta>): Promise<{ deltas: ModelDelta[]; error: Error | null }> {
  const deltas: ModelDelta[] = [];
  try {
    for await (const delta of stream) deltas.push(delta);
    return { deltas, error: null };
  } catch (error) {
    return { deltas, error: error as Error };
  }
}

/** The deltas put back together the way the loop does it. */
export function assembled(deltas: ModelDelta[]) {
  const builder = new ReplyBuilder();
  for (const delta of deltas) builder.add(delta);
  return builder.result(1);
}
