import type { CliArgs } from "./args.ts";
import { workspaceRoot } from "../session/workspace-root.ts";
import { Workspace } from "../files/workspace.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { JournalError, journaledRuns } from "../files/journal.ts";
import { applyUndo, latestChangedRun, leavesSkipped, outcomeLines, planLines, planUndo, undoLogLine } from "../files/restore.ts";

/**
 * `glassbox undo`: restores every file a run changed (default: the latest run that changed files),
 * newest change first. A file edited since glassbox wrote it is skipped and named (exit 1) unless
 * --force, which keeps what it held first. --dry-run says what would happen and changes nothing.
 */
export function undo(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): number {
  const workspace = new Workspace(workspaceRoot(args.workspace));
  const runs = journaledRuns(workspace.root);
  if (args.runId !== undefined && !runs.includes(args.runId)) {
    const known = runs.length ? `runs that changed files, newest first: ${runs.slice(0, 5).join(", ")}${runs.length > 5 ? ", …" : ""}` : "no run in it changed files";
    throw new UsageError(`--run ${args.runId}: no run with that id changed files in this workspace (${known})`);
  }
  const force = args.force ?? false;
  try {
    const runId = args.runId ?? latestChangedRun(workspace.root);
    if (!runId) {
      out("nothing to undo: no run in this workspace changed a file");
      return 0;
    }
    if (args.dryRun) {
      const plan = planUndo(workspace, runId);
      if (plan.alreadyUndone) return alreadyUndone(out, runId, plan.alreadyUndone.at);
      out(`dry run: undoing run ${runId} would, newest change first:`);
      for (const line of planLines(plan, force)) out(`  ${line}`);
      out("nothing was changed");
      return leavesSkipped(plan, force) ? 1 : 0;
    }
    const { plan, entry, log } = applyUndo(workspace, runId, { force });
    if (plan.alreadyUndone) return alreadyUndone(out, runId, plan.alreadyUndone.at);
    if (!entry) {
      out(`nothing to undo: run ${runId} changed no file`);
      return 0;
    }
    out(`undo of run ${runId}, newest change first:`);
    for (const line of outcomeLines(plan, entry)) out(`  ${line}`);
    out(undoLogLine(log));
    return entry.files.some((file) => file.action === "skipped") ? 1 : 0;
  } catch (error) {
    if (error instanceof JournalError) throw new UsageError(`cannot undo: ${error.message}; nothing was changed`);
    throw error;
  }
}

function alreadyUndone(out: (line: string) => void, runId: string, at: string): number {
  out(`run ${runId} was already undone (${at}); nothing to do`);
  return 0;
}
