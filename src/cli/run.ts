import { redact } from "../trace/redact.ts";
import type { CliArgs } from "./args.ts";
import type { Session } from "../session/session.ts";
import { connectServers, openSession, prepareModel, startRun } from "../session/session.ts";
import { formatEvent } from "./printer.ts";
import { UsageError } from "../session/usage-error.ts";
import { assembleMarked } from "../prompt/layers.ts";
import { findModels, onlyCandidate } from "../session/find-model.ts";
import { changedFiles } from "../undo/journal.ts";
import { openSaved, restoreNotes, type SavedSession } from "../session/store.ts";

/**
 * Headless `glassbox run`: one task, events on stdout, exit code from the stop status. Nobody is
 * asked anything: a call that needs approval and matches no --allow rule is denied.
 */
export async function runHeadless(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): Promise<number> {
  if (!args.task || !args.task.trim()) throw new UsageError('run needs a task: glassbox run [options] "TASK"');
  const session = openSession(args);
  const saved = openSaved(session, args);
  // On stderr, so stdout stays the event stream.
  if (saved.restored) for (const note of restoreNotes(saved.restored)) console.error(`glassbox: ${note}`);
  // No --model and none in the config: whatever answers, when exactly one model does.
  if (session.spec === null) session.chooseModel(onlyCandidate(await findModels(args.baseUrl)).spec);
  // Ctrl-C, SIGTERM and a closed terminal (SIGHUP) stop the run as Esc stops a TUI run: the stop event is written, the server stopped.
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort();
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  for (const name of signals) process.once(name, onSignal);
  try {
    // Headless nobody is asked: an untrusted server stays stopped, a quarantined tool unoffered.
    await connectServers(session, {}, args.strictPrompt);
    await prepareModel(session, undefined, interrupt.signal);
    return await runSession(args, session, saved, interrupt.signal, out);
  } finally {
    for (const name of signals) process.off(name, onSignal);
    await session.mcp.close();
    await session.ownServer?.stop();
  }
}

async function runSession(args: CliArgs, session: Session, saved: SavedSession, signal: AbortSignal, out: (line: string) => void): Promise<number> {
  if (args.showPrompt) {
    // With --json, stdout stays JSON Lines: the prompt for the person goes to stderr.
    const show = assembleMarked(session.layers);
    if (args.json) console.error(show);
    else out(show);
  }
  const run = startRun(session, args.task!, signal, saved);
  let status = "model_error";
  for await (const event of run.events) {
    if (event.kind === "stop") status = event.status;
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
