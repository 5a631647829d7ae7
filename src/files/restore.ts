import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync, type Stats } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { Refusal } from "../protocol/refusal.ts";
import { modeOf, replaceWhole } from "./file-write.ts";
import { removeKilledWriteLeftovers } from "./temporary-files.ts";
import { isOffLimitsName, type ResolvedPath, type Workspace } from "./workspace.ts";
import { isDiskFull, writeSoftly } from "../platform/disk-full.ts";
import { JOURNAL_FILE, appendUndo, digest, journaledRuns, readJournal, undoFolder, type ChangeEntry, type UndoEntry } from "./journal.ts";

/** What undo does with one file. */
export type FileAction = "restore" | "remove" | "unchanged" | "skip";

export interface FilePlan {
  /** Workspace-relative, as the run's journal names it. */
  path: string;
  action: FileAction;
  /** Why a file is skipped or left as it is. */
  reason?: string;
  /** A skip that --force may override: someone edited the file since glassbox wrote it. */
  forceable: boolean;
  /** For a skip that --force overrides: what it would do instead. */
  forced?: "restore" | "remove";
  /** The copy saved before the run's first change to the file (restore). */
  saved?: string;
  /** The permission bits the file had then. */
  mode?: number;
  /**
   * Plans the file again: a skip may no longer hold once the newer changes before it are undone
   * (a command that replaced the folder `src` with a file: that file goes first, then `src/a.txt`
   * can come back).
   */
  replan?: () => FilePlan;
  /** What it held then was a symbolic link (its text is in `saved`). */
  restoresLink?: boolean;
  target?: ResolvedPath;
}

export interface UndoPlan {
  runId: string;
  /** Newest change first. Files an earlier undo already handled are not in it. */
  files: FilePlan[];
  /** Every file the run changed was handled by an earlier undo. */
  alreadyUndone: UndoEntry | null;
  /** The journal's last line, cut off mid-write and left out (named to the person), or null. */
  torn: string | null;
}

/** The run undo acts on by default: the latest one that changed files. */
export function latestChangedRun(workspaceRoot: string): string | null {
  return journaledRuns(workspaceRoot).find((runId) => (readJournal(workspaceRoot, runId)?.changes.length ?? 0) > 0) ?? null;
}

/**
 * Works out, without touching anything, what undoing a run would do: each file it changed goes
 * back to what it held before the run's first change to it, but only while it still holds exactly
 * what the run's last change wrote. Anything else (someone edited it since) is skipped.
 */
export function planUndo(workspace: Workspace, runId: string): UndoPlan {
  const journal = readJournal(workspace.root, runId);
  if (!journal) return { runId, files: [], alreadyUndone: null, torn: null };
  const torn = journal.torn;
  // A file an earlier undo restored, removed or found as it was is never undone twice.
  const handled = new Set(journal.undos.flatMap((undo) => undo.files.filter((file) => file.action !== "skipped").map((file) => file.path)));
  const byPath = new Map<string, ChangeEntry[]>();
  for (const change of journal.changes) byPath.set(change.path, [...(byPath.get(change.path) ?? []), change]);
  const groups = [...byPath.values()].sort((a, b) => b.at(-1)!.seq - a.at(-1)!.seq);
  const pending = groups.filter((changes) => !handled.has(changes[0]!.path));
  if (groups.length && !pending.length) return { runId, files: [], alreadyUndone: journal.undos.at(-1)!, torn };
  const files = pending.map((changes) => {
    const plan = () => planFile(workspace, runId, changes, journal.unfinished);
    return { ...plan(), replan: plan };
  });
  return { runId, files, alreadyUndone: null, torn };
}

/**
 * What the run left in a file: what its last change wrote, or, when a kill cut that change off
 * (announced, never said done), possibly still what was there before it.
 */
function leftByRun(last: ChangeEntry, unfinished: Set<number>): Array<string | null> {
  return unfinished.has(last.seq) ? [last.after_sha256, last.before?.sha256 ?? null] : [last.after_sha256];
}

function planFile(workspace: Workspace, runId: string, changes: ChangeEntry[], unfinished: Set<number>): FilePlan {
  const first = changes[0]!;
  const last = changes.at(-1)!;
  const path = first.path;
  const skip = (reason: string, forced?: FilePlan["forced"]): FilePlan => ({ path, action: "skip", reason, forceable: forced !== undefined, forced });
  // A command's change may have left a link, or replaced one: that link itself is undone, never followed.
  const link = last.after_link === true || first.before?.link === true;
  let target: ResolvedPath;
  try {
    target = link ? linkPath(workspace, path) : workspace.resolve(path);
  } catch (error) {
    if (error instanceof Refusal) return skip(`not restored: ${error.message.replace(/^Argument `path`:? ?/, "the path ")}`);
    throw error;
  }
  if (target.relative !== path) return skip(`not restored: the path now leads to ${target.relative} through a link`);
  if (target.stats && !target.stats.isFile() && !(link && target.stats.isSymbolicLink())) return skip("not restored: it is no longer a regular file");
  let saved: string | undefined;
  let mode: number | undefined;
  if (first.before) {
    saved = join(undoFolder(workspace.root, runId), first.before.copy);
    if (!existsSync(saved) || digest(readFileSync(saved)) !== first.before.sha256) return skip(`not restored: the copy saved before the run (${shown(workspace, saved)}) is missing or damaged`);
    mode = first.before.link ? undefined : (first.before.mode ?? modeOf(saved) ?? undefined);
  }
  const restoresLink = first.before?.link === true;
  const undo = first.before ? "restore" : "remove";
  const now = !target.stats ? null : target.stats.isSymbolicLink() ? digest(readlinkSync(target.real)) : digest(readFileSync(target.real));
  // Checked first: a file the run created and then deleted, or changed and changed back, needs nothing.
  // A command may change a file's mode alone (chmod): the same bytes with another mode are not as they were.
  const sameMode = mode === undefined || !target.stats?.isFile() || (target.stats.mode & 0o7777) === mode;
  if (now === (first.before?.sha256 ?? null) && sameMode) return { path, action: "unchanged", reason: "it is already as it was before the run", forceable: false, target };
  if (leftByRun(last, unfinished).includes(now)) return { path, action: undo, forceable: false, saved, mode, target, restoresLink };
  const since = now === null ? "deleted" : last.after_sha256 === null ? "created again" : "changed";
  return { ...skip(`it was ${since} since glassbox ${last.after_sha256 === null ? "removed" : "wrote"} it`, undo), saved, mode, target, restoresLink };
}

export interface UndoOptions {
  force: boolean;
  now?: Date;
}

/**
 * Undoes a run: plans again (the files may have changed while a person looked at the plan),
 * restores or removes each file, and appends the `undo` event to the run's journal. With
 * `force`, a file edited since is restored too, and what it held is first kept beside the journal.
 */
/** Where the undo was recorded, or that a full disk kept it from being recorded. */
export function undoLogLine(log: string | null): string {
  return log ? `log: ${log}` : "the undo could not be recorded in the run's journal: no space left on device";
}

export function applyUndo(workspace: Workspace, runId: string, options: UndoOptions): { plan: UndoPlan; entry: UndoEntry | null; log: string | null } {
  removeKilledWriteLeftovers(workspace.root);
  const plan = planUndo(workspace, runId);
  if (plan.alreadyUndone || !plan.files.length) return { plan, entry: null, log: null };
  const at = (options.now ?? new Date()).toISOString();
  const keptIn = join(undoFolder(workspace.root, runId), "overwritten", at.replace(/[-:.]/g, ""));
  const files: UndoEntry["files"] = plan.files.map((planned) => {
    const file = planned.action === "skip" && planned.replan ? planned.replan() : planned;
    const action = file.action === "skip" && options.force && file.forced ? file.forced : file.action;
    if (action === "skip") return { path: file.path, action: "skipped", reason: file.reason };
    if (action === "unchanged") return { path: file.path, action: "unchanged", reason: file.reason };
    try {
      const kept = file.action === "skip" && file.target?.stats ? keep(workspace, file, keptIn) : undefined;
      if (action === "restore" && file.restoresLink) restoreLink(file.target!.real, readFileSync(file.saved!, "utf8"));
      else if (action === "restore") replaceWhole(workspace.root, file.target!.real, (temporary) => copyFileSync(file.saved!, temporary), file.mode ?? null);
      else if (isFileOrLink(file.target!.real)) unlinkSync(file.target!.real);
      return { path: file.path, action: action === "restore" ? "restored" : "removed", ...(kept ? { kept } : {}) };
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      return { path: file.path, action: "skipped", reason: "not restored: no space left on device, and it is unchanged" };
    }
  });
  const entry: UndoEntry = { kind: "undo", run_id: runId, at, force: options.force, files };
  const journal = join(undoFolder(workspace.root, runId), JOURNAL_FILE);
  // Not recorded on a full disk: the next undo finds the restored files as they were before the run.
  const recorded = writeSoftly(journal, () => appendUndo(workspace.root, entry));
  return { plan, entry, log: recorded ? shown(workspace, journal) : null };
}

/** A path a command's change may have left as a link, taken as it is: its folder must be the workspace's own, reached through no link. */
function linkPath(workspace: Workspace, path: string): ResolvedPath {
  if (isAbsolute(path) || path.split("/").some((name) => name === ".." || isOffLimitsName(name))) throw new Refusal("Argument `path` leads outside the workspace or to an off-limits name.");
  const real = join(workspace.root, path);
  let folder: string;
  try {
    folder = realpathSync(dirname(real));
  } catch {
    return { real, relative: path, stats: null };
  }
  if (folder !== dirname(real)) throw new Refusal("Argument `path` goes through a folder that is now a link.");
  return { real, relative: path, stats: lstatOrNull(real) };
}

function lstatOrNull(real: string): Stats | null {
  try {
    return lstatSync(real);
  } catch {
    return null;
  }
}

function isFileOrLink(real: string): boolean {
  const stats = lstatOrNull(real);
  return stats !== null && (stats.isFile() || stats.isSymbolicLink());
}

/** Puts back a link a command replaced or removed: written beside it, then renamed over whatever is there. */
function restoreLink(real: string, text: string): void {
  const temporary = `${real}.glassbox-${process.pid}.link`;
  rmSync(temporary, { force: true });
  symlinkSync(text, temporary);
  renameSync(temporary, real);
}

/** With --force: what a file edited since holds is kept beside the journal before it is restored. */
function keep(workspace: Workspace, file: FilePlan, keptIn: string): string {
  const copy = join(keptIn, file.path);
  mkdirSync(dirname(copy), { recursive: true });
  copyFileSync(file.target!.real, copy);
  return shown(workspace, copy);
}

const FORCE_HINT = " (glassbox undo --force restores it and keeps what it holds)";

/** What undoing would do, one line per file (a dry run, the TUI's question). */
export function planLines(plan: UndoPlan, force: boolean): string[] {
  return withTornNote(plan, plan.files.map((file) => {
    const would = file.action === "skip" && force && file.forced ? file.forced : file.action;
    const forced = file.action === "skip" && would !== "skip" ? ` although ${file.reason}; what it holds would be kept` : "";
    if (would === "restore") return `would restore ${file.path}${forced}`;
    if (would === "remove") return `would remove ${file.path}, which the run created${forced}`;
    if (would === "unchanged") return `would leave ${file.path}: ${file.reason}`;
    return `would skip ${file.path}: ${file.reason}${file.forceable ? FORCE_HINT : ""}`;
  }));
}

/** A journal line cut off mid-write is said first: the person learns what undo left out. */
function withTornNote(plan: UndoPlan, lines: string[]): string[] {
  return plan.torn ? [`left out ${plan.torn}: the change it announced never began`, ...lines] : lines;
}

/** What undo did, one line per file, in the plan's order. */
export function outcomeLines(plan: UndoPlan, entry: UndoEntry): string[] {
  return withTornNote(plan, entry.files.map((file, index) => {
    const kept = file.kept ? ` (forced: what it held is kept in ${file.kept})` : "";
    if (file.action === "restored") return `restored ${file.path}${kept}`;
    if (file.action === "removed") return `removed ${file.path}, which the run created${kept}`;
    if (file.action === "unchanged") return `left ${file.path}: ${file.reason}`;
    return `skipped ${file.path}: ${file.reason}${plan.files[index]?.forceable ? FORCE_HINT : ""}`;
  }));
}

/** Whether undoing this plan would leave a file skipped. */
export function leavesSkipped(plan: UndoPlan, force: boolean): boolean {
  return plan.files.some((file) => file.action === "skip" && !(force && file.forceable));
}

/** A location under the workspace, as shown to the person: relative, never the machine's absolute path. */
function shown(workspace: Workspace, location: string): string {
  return relative(workspace.root, location);
}
