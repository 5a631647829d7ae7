import type { AgentEvent } from "../protocol/events.ts";
import { Run, type RunInput } from "./run.ts";
import { drive } from "./drive.ts";
import { exploreSubRun } from "./sub-run.ts";

export type { RunInput } from "./run.ts";

/**
 * One run of the agent, with sub-runs for `explore` unless the input names another runner (or
 * none). The loop itself is drive.ts; the run's state and stages live in `Run` (run.ts), the stop
 * rules in stop-rules.ts, the sub-run in sub-run.ts.
 */
export async function* runAgent(input: RunInput): AsyncGenerator<AgentEvent> {
  yield* drive(new Run({ subRunner: exploreSubRun, ...input }));
}
