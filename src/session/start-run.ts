import { windowOf } from "../model/options.ts";
import { runAgent } from "../core/loop.ts";
import { BATCHED_CONTEXT_POLICY, DEFAULT_CONTEXT_POLICY, type ContextPolicy } from "../core/discipline.ts";
import { canonicalJson } from "../protocol/canonical.ts";
import { ownEvent, type AgentEvent } from "../protocol/events.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { assemble } from "../prompt/layers.ts";
import { EventLog, eventLogPath, newRunId } from "../trace/event-log.ts";
import { progressPath, writeProgress, type Progress } from "../trace/progress.ts";
import { DiskFullWatch, writeSoftly } from "../platform/disk-full.ts";
import { normalJit } from "../platform/jit.ts";
import { removeKilledWriteLeftovers } from "../files/temporary-files.ts";
import { ChangeJournal } from "../files/journal.ts";
import type { Session } from "./session.ts";
import { withMapLayer } from "./map-layer.ts";
import type { SavedSession } from "./store.ts";

/* Recording a run: the session's run started, every event logged before anyone sees it, the plan saved, a full disk said. */

export interface StartedRun {
  runId: string;
  logPath: string;
  events: AsyncGenerator<AgentEvent>;
}

/**
 * Starts one task; every event is written to the run's log before anyone else sees it. With a
 * saved session, the run continues its conversation and is appended to it as it goes. What a
 * killed write left is cleared first; a full disk under the run's records stops it as disk_full.
 * `summarizeFirst`: the person asked for a summary (/compact), made before the task is sent.
 */
export function startRun(session: Session, task: string, signal?: AbortSignal, saved?: SavedSession, summarizeFirst = false): StartedRun {
  normalJit();
  const firstMessage = session.resume ? `${session.resume}\n\n${task}` : task;
  session.resume = null;
  const runId = newRunId(session.clock.now());
  const path = eventLogPath(session.workspace.root, runId);
  let log: EventLog;
  try {
    log = new EventLog(path);
  } catch (error) {
    throw new UsageError(`cannot write the run log ${path} (${(error as NodeJS.ErrnoException).code ?? error}); glassbox logs every run, so the workspace must be writable`);
  }
  removeKilledWriteLeftovers(session.workspace.root);
  session.checkpoint.journal = new ChangeJournal(session.workspace.root, runId);
  const diskFull = new DiskFullWatch(session.workspace.root);
  const events = logged(log, session, runId, diskFull, withMapLayer(session, (layers) => runAgent({
    runId,
    task: firstMessage,
    systemPrompt: assemble(layers),
    promptLayers: layers.map(({ name, origin, digest }) => ({ name, origin, digest })),
    model: session.model,
    checkpoint: session.checkpoint,
    offerTools: session.offerTools,
    limits: session.limits,
    clock: session.clock,
    workspace: session.workspace.root,
    sandbox: session.sandbox,
    profile: session.profile,
    replyTokenCap: session.config.model_options.max_tokens,
    discipline: {
      context: session.config.components.context_management ? contextPolicy(session) : null,
      stall: session.config.components.stall_rules ? session.config.stall : null,
      budgetWarning: session.config.budget_warning,
    },
    verify: session.config.components.verification_gate ? session.config.verify : undefined,
    contextWindow: windowOf(session.config.model_options),
    record: saved?.record,
    context: saved?.context,
    summarizeFirst,
    signal: signal ? AbortSignal.any([signal, diskFull.signal]) : diskFull.signal,
  })));
  return { runId, logPath: log.path, events: saved ? saved.save(runId, events) : events };
}

/**
 * The config's context policy; compaction in fewer, larger steps where glassbox started a server
 * that cannot keep its cache past a compaction (server-plan.ts) and the config leaves the policy
 * at its defaults.
 */
export function contextPolicy(session: Session): ContextPolicy {
  const batched = session.ownServer?.launch.plan?.batchedCompaction ?? false;
  return batched && canonicalJson(session.config.context) === canonicalJson(DEFAULT_CONTEXT_POLICY) ? BATCHED_CONTEXT_POLICY : session.config.context;
}

/** Logs each event before anyone sees it, saves the plan on each change; prompt drift is said right after run_start. */
async function* logged(log: EventLog, session: Session, runId: string, diskFull: DiskFullWatch, events: AsyncGenerator<AgentEvent>): AsyncGenerator<AgentEvent> {
  const drift = session.drift;
  const flush = function* () {
    for (const event of session.pending.splice(0)) {
      log.write(event);
      yield event;
    }
  };
  const root = session.workspace.root;
  try {
    for await (const loopEvent of events) {
      let event = onFullDisk(loopEvent, diskFull);
      // stop stays the last line: what happened outside the run is said before it.
      const last = event.kind === "stop" && ownEvent(event);
      if (last && session.pending.length) yield* flush();
      // The stop itself may be what met the full disk.
      if (!log.write(event)) event = onFullDisk(event, diskFull);
      if (event.kind === "todo") writeSoftly(progressPath(root), () => writeProgress(root, { run_id: runId, updated_at: new Date(session.clock.now()).toISOString(), items: event.items as Progress["items"] }));
      yield event;
      if (event.kind === "run_start" && ownEvent(event) && drift?.length) {
        const warning: AgentEvent = { kind: "prompt_drift", findings: drift };
        log.write(warning);
        yield warning;
      }
      // Checked first: a generator made for every streamed token costs more than the token.
      if (!last && session.pending.length) yield* flush();
    }
  } finally {
    diskFull.close();
  }
}

/** A run whose records met a full disk ends `disk_full`, whatever the loop saw (the abort, or its own end). */
function onFullDisk(event: AgentEvent, diskFull: DiskFullWatch): AgentEvent {
  return event.kind === "stop" && ownEvent(event) && diskFull.failedAt !== null ? { ...event, status: "disk_full", reason: diskFull.reason() } : event;
}
