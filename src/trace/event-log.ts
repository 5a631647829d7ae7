import { appendFileSync } from "node:fs";
import { redact } from "./redact.ts";
import { dirname } from "node:path";
import { glassboxFolder, makeGlassboxFolder } from "../platform/glassbox-folder.ts";
import { appendLine } from "../platform/append-line.ts";
import { writeSoftly } from "../platform/disk-full.ts";
import type { AgentEvent } from "../protocol/events.ts";

/** Where a run's events go: `<workspace>/.glassbox/runs/<run_id>.jsonl`, a folder no tool can touch. */
export function eventLogPath(workspaceRoot: string, runId: string): string {
  return glassboxFolder(workspaceRoot, "runs", `${runId}.jsonl`);
}

/**
 * Appends each event as one JSON line in a single write, so a run killed at any moment leaves a
 * log whose every line parses but a last one the kill cut off. Streaming deltas are left out:
 * their text is whole in model_reply.
 * On a full disk an event is left out (never half written) and the run is told (disk-full.ts).
 */
export class EventLog {
  /** Creates the log file at once, so a workspace that cannot hold it fails before anything runs. */
  constructor(readonly path: string) {
    makeGlassboxFolder(dirname(path));
    appendFileSync(path, "");
  }

  /** Whether the event is in the log (deltas count as written). */
  write(event: AgentEvent): boolean {
    if (event.kind === "model_delta") return true;
    return writeSoftly(this.path, () => appendLine(this.path, redact(JSON.stringify(event))));
  }
}

/** A sortable, collision-safe run id: time first, then randomness. */
export function newRunId(now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, "").replace(/\..*/, "");
  return `${stamp}-${crypto.randomUUID().slice(0, 8)}`;
}
