import { statSync } from "node:fs";
import { join } from "node:path";
import type { CheckOutcome } from "./checks.ts";
import { workspaceFiles } from "./tree/walk.ts";
import type { ChangeJournal } from "../files/journal.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import type { WorkspaceAccess } from "../sandbox/rules.ts";
import type { WorkspaceChange } from "../protocol/events.ts";
import { makeOverlayFolders, overlayProblem, removeOverlayFolders } from "../sandbox/overlay.ts";
import { applyCommandChanges, type AppliedChanges, type CommandChange } from "./command-changes.ts";
import { SNAPSHOT_BOUND, journalSnapshot, ownFiles, pastBound, takeSnapshot, type SnapshotBound } from "./command-snapshot.ts";
import { Refusal } from "../protocol/refusal.ts";

/**
 * How a command that may write (run_command once approved, run_check) is run so that every
 * workspace file it changes is known when it ends and in the undo journal: over a copy-on-write
 * overlay where bwrap can mount one (its upper folder applied after it, killed or stopped
 * included); elsewhere in place, a bounded snapshot taken before it as the journal's "before".
 * Past the bound it is asked for (ToolPlan.askAnyway) and, once a person said yes, the changed
 * files are only named.
 */

/** Files compared before and after an unjournaled command; a bigger tree is not looked at (the result says so). */
const MAX_COMPARED_FILES = 50_000;
/** Changed files named in a result; the rest are counted. */
const MAX_NAMED_CHANGES = 30;

/** What a command changed: the sentence for the model and the person, and the list for the `tool_call` event. */
export interface ChangesReport {
  note: string;
  /** Sorted by code unit, as CONTRACT.md says; a rename is a deletion and a creation. */
  changes: WorkspaceChange[];
  /** Files in git-ignored folders written without journal copies. */
  ignored: number;
}

export interface JournalingChoice {
  /** The overlay can be mounted here. */
  overlay: boolean;
  /** Without one: why no snapshot can be taken (past the bound), or null. */
  tooBig: string | null;
}

/** Decided at preflight, so the person approving is told whether undo will cover the command. */
export function chooseJournaling(sandbox: Sandbox, root: string, bound: SnapshotBound = SNAPSHOT_BOUND): JournalingChoice {
  const overlay = sandbox.kind === "bwrap" && overlayProblem(root) === null;
  return { overlay, tooBig: overlay ? null : pastBound(ownFiles(root), bound) };
}

/** The approval's line about undo. */
export function undoDetail(choice: JournalingChoice): string {
  return choice.tooBig === null
    ? "undo:      its changes are saved in the undo journal; glassbox undo restores them"
    : `undo:      files it writes are NOT in the undo journal (${choice.tooBig}); glassbox undo cannot restore them`;
}

/** Why a rule's allow is not enough here: its writes could not be journaled. */
export function askAnywayReason(tool: string, choice: JournalingChoice): string | undefined {
  return choice.tooBig === null ? undefined : `${tool} may write and its changes cannot be journaled here: ${choice.tooBig}`;
}

export interface JournaledCommand {
  root: string;
  journal: ChangeJournal | undefined;
  bound: SnapshotBound;
  choice: JournalingChoice;
  /** "The command `x`" or "Check tests": the subject of a refusal. */
  subject: string;
  run(access: WorkspaceAccess): Promise<CheckOutcome>;
}

/** Runs the command the way `choice` says and reports what it changed. */
export async function runJournaled(command: JournaledCommand): Promise<{ outcome: CheckOutcome; report: ChangesReport }> {
  const { root, journal, choice } = command;
  if (choice.overlay) {
    const folders = makeOverlayFolders(root);
    try {
      const outcome = await command.run({ kind: "overlay", ...folders });
      return { outcome, report: journaledReport(applyCommandChanges(root, folders.upper, journal)) };
    } finally {
      removeOverlayFolders(folders);
    }
  }
  const snapshot = takeSnapshot(root, command.bound);
  // Grown past the bound since it was planned (or the snapshot failed): never run unjournaled unless the person was told.
  if (!snapshot && choice.tooBig === null) throw new Refusal(`${command.subject} was not run: no snapshot of the workspace could be taken for undo (it may have grown past the bound); tell the user.`);
  const before = snapshot ? null : fileStamps(root);
  const outcome = await command.run({ kind: "direct" });
  const report = snapshot ? journaledReport(journalSnapshot(root, snapshot, journal)) : unjournaledReport(before, fileStamps(root));
  return { outcome, report };
}

/** What nothing changed: a read-only run, or one that never started. */
export const NO_CHANGES: Pick<ChangesReport, "changes" | "ignored"> = { changes: [], ignored: 0 };

const EVENT_CHANGE: Record<CommandChange["what"], WorkspaceChange["change"]> = { created: "created", changed: "changed", deleted: "deleted", "re-moded": "mode" };

/** The event's list: one entry per path and kind of change, sorted by code unit (not by locale). */
function eventChanges(changes: ReadonlyArray<{ path: string; change: WorkspaceChange["change"] }>): WorkspaceChange[] {
  const seen = new Map(changes.map((change) => [`${change.path}\0${change.change}`, { path: change.path, change: change.change }]));
  return [...seen.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.change < b.change ? -1 : 1));
}

/** One line for the model and the person: what the command changed, all of it in the undo journal but the git-ignored files, counted. */
export function journaledReport(applied: AppliedChanges): ChangesReport {
  const heading = "Workspace files it changed (in the undo journal: glassbox undo restores them):";
  const named = applied.journaled.slice(0, MAX_NAMED_CHANGES).map((change) => {
    const size = change.what === "re-moded" ? "" : `, ${change.size} bytes`;
    return `${change.path} (${change.link ? `${change.what} link` : change.what}${size})`;
  });
  const more = applied.journaled.length > MAX_NAMED_CHANGES ? `, and ${applied.journaled.length - MAX_NAMED_CHANGES} more` : "";
  const ignored = applied.ignored ? ` ${applied.ignored === 1 ? "1 file in a git-ignored folder was" : `${applied.ignored} files in git-ignored folders were`} written without journal copies.` : "";
  const leftOut = applied.leftOut.length ? ` Not applied (off limits): ${applied.leftOut.slice(0, MAX_NAMED_CHANGES).join(", ")}.` : "";
  const stopped = applied.stopped ? ` Stopped: ${applied.stopped}; tell the user the disk is full.` : "";
  return {
    note: `${heading} ${named.length ? `${named.join(", ")}${more}` : "none"}.${ignored}${leftOut}${stopped}`,
    changes: eventChanges(applied.journaled.map((change) => ({ path: change.path, change: EVENT_CHANGE[change.what] }))),
    ignored: applied.ignored,
  };
}

/**
 * Size and mtime of each file the tree tools see (git's ignore rules applied, so a build's output
 * folder is not walked): cheap, and enough to notice a write. null: too many to compare.
 */
function fileStamps(root: string): Map<string, string> | null {
  const files = workspaceFiles(root);
  if (files.length > MAX_COMPARED_FILES) return null;
  const stamps = new Map<string, string>();
  for (const path of files) {
    try {
      const stats = statSync(join(root, path));
      stamps.set(path, `${stats.size}:${stats.mtimeMs}`);
    } catch {
      // Gone since it was listed: left out, as if it had not been there.
    }
  }
  return stamps;
}

/** Which files the command added, changed and deleted, where no journal could hold them (a person said yes to that). */
function unjournaledReport(before: Map<string, string> | null, after: Map<string, string> | null): ChangesReport {
  const heading = "Workspace files it changed (not in the undo journal):";
  if (!before || !after) return { note: `${heading} not compared, the workspace holds over ${MAX_COMPARED_FILES} files.`, ...NO_CHANGES };
  const found: WorkspaceChange[] = [];
  for (const [path, stamp] of after) {
    const was = before.get(path);
    if (was === undefined) found.push({ path, change: "created" });
    else if (was !== stamp) found.push({ path, change: "changed" });
  }
  for (const path of before.keys()) if (!after.has(path)) found.push({ path, change: "deleted" });
  const changes = eventChanges(found);
  if (changes.length === 0) return { note: `${heading} none.`, ...NO_CHANGES };
  const named = changes.slice(0, MAX_NAMED_CHANGES).map((change) => `${change.path} (${change.change === "created" ? "new" : change.change})`);
  const more = changes.length > MAX_NAMED_CHANGES ? `, and ${changes.length - MAX_NAMED_CHANGES} more` : "";
  return { note: `${heading} ${named.join(", ")}${more}.`, changes, ignored: 0 };
}
