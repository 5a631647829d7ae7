import { mapLayer } from "../session/map-layer.ts";
import { redact } from "../trace/redact.ts";
import { HANG_UPS, ignoreHangUps } from "../platform/hang-ups.ts";
import { INSECURE_TLS_WARNING } from "../model/access.ts";
import type { CliArgs } from "./args.ts";
import type { Session } from "../session/session.ts";
import { connectServers, openSession, prepareModel, useModel } from "../session/session.ts";
import { startRun } from "../session/start-run.ts";
import { profileFor } from "../session/profile.ts";
import { formatEvent } from "./printer.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { ownEvent } from "../protocol/events.ts";
import { assembleMarked } from "../prompt/layers.ts";
import { findModels, onlyCandidate } from "../model/find-model.ts";
import { changedFiles } from "../files/journal.ts";
import { openSaved, restoreNotes, type SavedSession } from "../session/store.ts";

/**
 * Headless `glassbox run`: one task, events on stdout, exit code from the stop status. Nobody is
 * asked anything: a call that needs approval and matches no --allow rule is denied.
 */
export async function runHeadless(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): Promise<number> {
  if (!args.task || !args.task.trim()) throw new UsageError('run needs a task: glassbox run [options] "TASK"');
  const session = openSession(args, undefined, undefined, { profile: await profileFor(args) });
  const saved = openSaved(session, args);
  // On stderr, so stdout stays the event stream.
  if (session.insecureTls) console.error(`glassbox: ${INSECURE_TLS_WARNING}`);
  if (saved.restored) for (const note of restoreNotes(saved.restored)) console.error(`glassbox: ${note}`);
  // No --model and none in the config: whatever answers, when exactly one model does, with its profile.
  if (session.spec === null) {
    const found = onlyCandidate(await findModels(args.baseUrl));
    await useModel(session, args, found.spec, found.modelName);
  }
  const interrupt = new AbortController();
  const stopListening = stopOnSignals(interrupt);
  try {
    // Headless nobody is asked: an untrusted server stays stopped, a quarantined tool unoffered.
    await connectServers(session, {}, args.strictPrompt);
    await prepareModel(session, undefined, interrupt.signal);
    return await runSession(args, session, saved, interrupt.signal, out);
  } finally {
    await session.mcp.close();
    await session.ownServer?.stop();
    stopListening();
  }
}

/**
 * Ctrl-C, SIGTERM and a closed terminal (SIGHUP) stop the run as Esc stops a TUI run: the check's
 * or command's processes killed, its temp folder removed, the stop event written, the servers
 * stopped. Hang-ups are answered so until glassbox has ended (HANG_UPS says why); a second Ctrl-C
 * is the person's way to quit at once.
 */
export function stopOnSignals(interrupt: AbortController): () => void {
  const onSignal = () => interrupt.abort();
  process.once("SIGINT", onSignal);
  for (const name of HANG_UPS) process.on(name, onSignal);
  return () => {
    process.off("SIGINT", onSignal);
    // The run has ended and glassbox is about to exit with its status: a hang-up now must not cut that short (exit 129).
    // Ignored before the stop listener goes, so no instant is left with no listener and the signal's default (death).
    ignoreHangUps();
    for (const name of HANG_UPS) process.off(name, onSignal);
  };
}

async function runSession(args: CliArgs, session: Session, saved: SavedSession, signal: AbortSignal, out: (line: string) => void): Promise<number> {
  if (args.showPrompt) {
    // With --json, stdout stays JSON Lines: the prompt for the person goes to stderr.
    const map = await mapLayer(session.workspace, session.config);
    const show = assembleMarked(map ? [...session.layers, map] : session.layers);
    if (args.json) console.error(show);
    else out(show);
  }
  const run = startRun(session, args.task!, signal, saved);
  let status = "model_error";
  for await (const event of run.events) {
    // A sub-run's stop is not the run's.
    if (event.kind === "stop" && ownEvent(event)) status = event.status;
    // stdout may be a pipe nobody reads: the person learns of a full disk on stderr too.
    if (event.kind === "stop" && ownEvent(event) && event.status === "disk_full") console.error(`glassbox: ${event.reason}`);
    const line = args.json ? (event.kind === "model_delta" ? null : JSON.stringify(event)) : formatEvent(event);
    if (line !== null) out(redact(line));
  }
  if (!args.json) {
    out(`log: ${run.logPath}`);
    out(`session: ${saved.id} (glassbox run --continue or glassbox --continue goes on from here)`);
    const changed = changedFiles(session.workspace.root, run.runId);
    if (changed) out(`changed ${changed} file(s); to put them back: glassbox undo --workspace ${session.workspace.root} --run ${run.runId}`);
  }
  return status === "completed" ? 0 : 1;
}
