import type { AgentEvent } from "../protocol/events.ts";
import type { Run } from "./run.ts";
import type { Stop } from "./stop-rules.ts";

/**
 * The agent loop over one Run: ask the model, pass every tool call through the checkpoint,
 * repeat until a reply without tool calls, an allowed `finish`, or a limit. Every run ends with
 * one `stop`, and the loop returns why. A run and its sub-runs are driven alike.
 */
export async function* drive(run: Run): AsyncGenerator<AgentEvent, Stop> {
  await run.prepare();
  yield run.startEvent();
  for (;;) {
    const limit = run.beforeModel();
    if (limit) return yield* end(run, limit);
    const turn = yield* run.askModel();
    if (!("reply" in turn)) return yield* end(run, turn);
    const judged = yield* run.judgeReply(turn);
    if (judged === "again") continue;
    if (judged) return yield* end(run, judged);
    const stop = yield* run.answerCalls(turn);
    if (stop) return yield* end(run, stop);
  }
}

function* end(run: Run, stop: Stop): Generator<AgentEvent, Stop> {
  yield run.stopEvent(stop);
  return stop;
}
