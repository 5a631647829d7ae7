import { chmodSync, copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmdirSync, unlinkSync, type Stats } from "node:fs";
import { join } from "node:path";
import { IgnoreRules, readRules } from "./tree/ignore-rules.ts";
import { isOffLimitsName } from "../files/workspace.ts";
import type { ChangeJournal } from "../files/journal.ts";
import { isOpaque } from "../platform/xattr.ts";
import { isDiskFull } from "../platform/disk-full.ts";

/**
 * Applies what a command left in its overlay's upper folder (src/sandbox/overlay.ts) to the
 * workspace, each change saved in the run's undo journal first, in the same order and the same
 * journal as the model's edits: a new or changed file or link is renamed into place, a whiteout
 * (a 0/0 character device) deletes what is there, an opaque folder (`user.overlay.opaque`)
 * deletes what it no longer holds. Files in git-ignored folders are applied without journal
 * copies and counted. Nothing lands behind a link: the upper folder holds every folder on a
 * file's way, and each is made a real folder of the workspace first (a link or file there is
 * removed, journaled), so a rename never passes through a link; off-limits names are left out.
 */
export interface CommandChange {
  path: string;
  what: "created" | "changed" | "deleted" | "re-moded";
  /** Bytes after the change (before it, for a deletion). */
  size: number;
  link: boolean;
}

export interface AppliedChanges {
  /** Journaled changes, in the order they were made. */
  journaled: CommandChange[];
  /** Files written or deleted in git-ignored folders, without journal copies. */
  ignored: number;
  /** Paths left out: off-limits names (`.git`, `.glassbox`, `.env*`), which the sandbox keeps a command from changing anyway. */
  leftOut: string[];
  /** Why applying stopped part way (a full disk), said as the end of a sentence; the changes named were made, the rest not. */
  stopped?: string;
}

interface Applying {
  root: string;
  upper: string;
  journal: ChangeJournal | undefined;
  result: AppliedChanges;
}

export const COMMAND_TOOL = "run_command";

export function applyCommandChanges(root: string, upper: string, journal: ChangeJournal | undefined): AppliedChanges {
  const at: Applying = { root, upper, journal, result: { journaled: [], ignored: 0, leftOut: [] } };
  try {
    applyFolder(at, "", IgnoreRules.atRoot(root), false);
  } catch (error) {
    // A copy for undo that does not fit: that change and the ones after it are not made, never made unjournaled.
    if (!isDiskFull(error)) throw error;
    at.result.stopped = "no space left on device, so the rest of what it changed was dropped and the workspace holds only the changes named";
  }
  return at.result;
}

function applyFolder(at: Applying, folder: string, outer: IgnoreRules, ignored: boolean): void {
  const names = readdirSync(join(at.upper, folder)).sort();
  const gitignore = names.includes(".gitignore") ? join(at.upper, folder, ".gitignore") : join(at.root, folder, ".gitignore");
  const rules = ignored ? outer : outer.enter(folder, readRules(gitignore));
  for (const name of names) {
    const path = folder ? `${folder}/${name}` : name;
    const from = join(at.upper, path);
    const stats = lstatSync(from);
    const inIgnored = ignored || (stats.isDirectory() && name === "node_modules") || rules.ignores(path, stats.isDirectory());
    // Hidden or read-only in the sandbox, so nothing should be here; never applied if it is.
    if (isOffLimitsName(name)) {
      at.result.leftOut.push(path);
      continue;
    }
    if (stats.isCharacterDevice() && stats.rdev === 0) removeTree(at, path, inIgnored);
    else if (stats.isDirectory()) {
      applyDirectory(at, path, stats, inIgnored);
      applyFolder(at, path, rules, inIgnored);
    } else if (stats.isFile() || stats.isSymbolicLink()) applyFile(at, path, stats, inIgnored);
  }
}

function lstatOrNull(real: string): Stats | null {
  try {
    return lstatSync(real);
  } catch {
    return null;
  }
}

function applyDirectory(at: Applying, path: string, stats: Stats, ignored: boolean): void {
  const to = join(at.root, path);
  const now = lstatOrNull(to);
  if (now && !now.isDirectory()) removeTree(at, path, ignored);
  if (!now?.isDirectory()) mkdirSync(to, { mode: stats.mode & 0o7777 });
  else if (isOpaque(join(at.upper, path))) {
    // Removed and made again inside the command: what the upper folder does not hold is gone.
    const kept = new Set(readdirSync(join(at.upper, path)));
    for (const name of readdirSync(to)) if (!kept.has(name)) removeTree(at, `${path}/${name}`, ignored);
  }
  if (now?.isDirectory() && (now.mode & 0o7777) !== (stats.mode & 0o7777)) chmodSync(to, stats.mode & 0o7777);
}

/** The bytes a file or link holds (a link: its text), for the journal's digest and the comparison. */
function content(real: string, stats: Stats): Buffer {
  return stats.isSymbolicLink() ? Buffer.from(readlinkSync(real)) : readFileSync(real);
}

function applyFile(at: Applying, path: string, stats: Stats, ignored: boolean): void {
  const from = join(at.upper, path);
  const to = join(at.root, path);
  let now = lstatOrNull(to);
  if (now?.isDirectory()) {
    removeTree(at, path, ignored);
    now = null;
  }
  if (ignored) {
    moveInto(from, to, stats);
    at.result.ignored++;
    return;
  }
  const after = content(from, stats);
  const before = now ? content(to, now) : null;
  const sameBytes = before !== null && now!.isSymbolicLink() === stats.isSymbolicLink() && before.equals(after);
  const sameMode = sameBytes && (stats.isSymbolicLink() || (now!.mode & 0o7777) === (stats.mode & 0o7777));
  if (sameMode) return moveInto(from, to, stats); // Touched, not changed: nothing to undo.
  const saved = at.journal?.saveBefore(COMMAND_TOOL, { real: to, relative: path, stats: now }, after, stats.isSymbolicLink());
  try {
    moveInto(from, to, stats);
  } catch (error) {
    saved?.failed();
    throw error;
  }
  saved?.done();
  at.result.journaled.push({ path, what: now === null ? "created" : sameBytes ? "re-moded" : "changed", size: after.length, link: stats.isSymbolicLink() });
}

/** Renames the upper copy into place (the same file system); copies it where a mount sits between. */
function moveInto(from: string, to: string, stats: Stats): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV" || stats.isSymbolicLink()) throw error;
    copyFileSync(from, to);
    chmodSync(to, stats.mode & 0o7777);
  }
}

/** Deletes what is at `path` in the workspace, folders depth first, each file journaled (unless ignored) before it goes. */
function removeTree(at: Applying, path: string, ignored: boolean): void {
  const real = join(at.root, path);
  const now = lstatOrNull(real);
  if (!now) return;
  if (now.isDirectory()) {
    for (const name of readdirSync(real)) removeTree(at, `${path}/${name}`, ignored);
    rmdirSync(real);
    return;
  }
  if (ignored) {
    unlinkSync(real);
    at.result.ignored++;
    return;
  }
  const saved = at.journal?.saveBefore(COMMAND_TOOL, { real, relative: path, stats: now }, null);
  try {
    unlinkSync(real);
  } catch (error) {
    saved?.failed();
    throw error;
  }
  saved?.done();
  at.result.journaled.push({ path, what: "deleted", size: now.size, link: now.isSymbolicLink() });
}
