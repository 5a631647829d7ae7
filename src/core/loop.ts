import type { AgentEvent } from "../protocol/events.ts";
import { Run, type RunInput } from "./run.ts";

export type { RunInput } from "./run.ts";

/**
 * The agent loop: ask the model, pass every tool call through the checkpoint, repeat until a
 * reply without tool calls, an allowed `finish`, or a limit. Every run ends with one `stop`.
 * The run's state and its stages live in `Run` (run.ts); the stop rules in stop-rules.ts.
 */
export async function* runAgent(input: RunInput): AsyncGenerator<AgentEvent> {
  const run = new Run(input);
  await run.prepare();
  yield run.startEvent();
  for (;;) {
    const limit = run.beforeModel();
    if (limit) return yield run.stopEvent(limit);
    const turn = yield* run.askModel();
    if (!("reply" in turn)) return yield run.stopEvent(turn);
    const judged = yield* run.judgeReply(turn);
    if (judged === "again") continue;
    if (judged) return yield run.stopEvent(judged);
    const stop = yield* run.answerCalls(turn);
    if (stop) return yield run.stopEvent(stop);
  }
}
