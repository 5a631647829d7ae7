import { Workspace } from "../files/workspace.ts";
import { JournalError } from "../files/journal.ts";
import { applyUndo, latestChangedRun, outcomeLines, planLines, planUndo, undoLogLine } from "../files/restore.ts";
import type { ApprovalModal } from "./approval-modal.ts";

/**
 * `u` while idle: the latest run that changed files, its files listed, and y/n. The same
 * journal and rules as `glassbox undo` without --force: a file edited since is skipped and named.
 */
export async function offerUndo(workspaceRoot: string, modal: ApprovalModal, say: (line: string) => void): Promise<void> {
  // Always confined, whatever the session's experiment settings.
  const workspace = new Workspace(workspaceRoot);
  try {
    const runId = latestChangedRun(workspace.root);
    if (!runId) return say("nothing to undo: no run in this workspace changed a file");
    const plan = planUndo(workspace, runId);
    if (plan.alreadyUndone) return say(`nothing to undo: the last run that changed files (${runId}) was already undone`);
    const go = await modal.confirm("undo", `Undo run ${runId}? Newest change first:`, planLines(plan, false), { yes: "undo these changes", no: "(or any other key) keep them" }, true);
    if (!go) return say("nothing undone");
    const done = applyUndo(workspace, runId, { force: false });
    if (!done.entry) return say(done.plan.alreadyUndone ? `run ${runId} was already undone` : `nothing to undo in run ${runId}`);
    say(`undo of run ${runId}, newest change first:`);
    for (const line of outcomeLines(done.plan, done.entry)) say(`  ${line}`);
    say(undoLogLine(done.log));
  } catch (error) {
    if (error instanceof JournalError) return say(`cannot undo: ${error.message}; nothing was changed`);
    throw error;
  }
}
