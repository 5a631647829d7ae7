import { constants, copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, type Dirent, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { PARSE_ONCE } from "../protocol/zod-start.ts";
import { IgnoreRules, readRules } from "./tree/ignore-rules.ts";
import { isOffLimitsName } from "../files/workspace.ts";
import { makeGlassboxFolder } from "../platform/glassbox-folder.ts";
import { temporaryFolder } from "../files/temporary-files.ts";
import { COMMAND_TOOL, type AppliedChanges } from "./command-changes.ts";
import type { ChangeJournal } from "../files/journal.ts";
import { isDiskFull } from "../platform/disk-full.ts";

/**
 * Where no overlay can be mounted (Landlock, macOS, no sandbox): a snapshot of the workspace's
 * files (the ones git does not ignore) taken before a command that may write, as clones where the
 * file system makes them cheap (APFS, btrfs, XFS: `COPYFILE_FICLONE`), copies elsewhere; after it,
 * what changed is journaled with the snapshot's bytes as "before". Bounded: a workspace past the
 * bound is not snapshotted, and then a command a rule allowed is asked instead (never run
 * unjournaled without a person's yes).
 */
export type SnapshotBound = { max_files: number; max_bytes: number };

export const SNAPSHOT_BOUND: SnapshotBound = z
  .object({ max_files: z.number().int().positive(), max_bytes: z.number().int().positive() })
  .parse({ max_files: 20_000, max_bytes: 256 * 1024 * 1024 }, PARSE_ONCE);

export interface OwnFile {
  path: string;
  stats: Stats;
}

/** The files and links git does not ignore (node_modules never), off-limits names left out; links are not followed. */
export function ownFiles(root: string): OwnFile[] {
  const files: OwnFile[] = [];
  walk(root, "", IgnoreRules.atRoot(root), files);
  return files;
}

function walk(root: string, folder: string, outer: IgnoreRules, files: OwnFile[]): void {
  let dirents: Dirent[];
  try {
    dirents = readdirSync(join(root, folder), { withFileTypes: true });
  } catch {
    return;
  }
  const rules = outer.enter(folder, dirents.some((dirent) => dirent.name === ".gitignore") ? readRules(join(root, folder, ".gitignore")) : "");
  for (const dirent of dirents) {
    const path = folder ? `${folder}/${dirent.name}` : dirent.name;
    if (isOffLimitsName(dirent.name) || dirent.name === "node_modules" || rules.ignores(path, dirent.isDirectory())) continue;
    if (dirent.isDirectory()) walk(root, path, rules, files);
    else if (dirent.isFile() || dirent.isSymbolicLink()) files.push({ path, stats: lstatSync(join(root, path)) });
  }
}

/** Why this workspace is past the bound, or null. */
export function pastBound(files: OwnFile[], bound: SnapshotBound = SNAPSHOT_BOUND): string | null {
  if (files.length > bound.max_files) return `the workspace holds over ${bound.max_files} files`;
  const bytes = files.reduce((sum, file) => sum + file.stats.size, 0);
  return bytes > bound.max_bytes ? `the workspace holds over ${(bound.max_bytes / 1024 / 1024).toFixed(0)} MiB` : null;
}

export interface Snapshot {
  folder: string;
  files: Map<string, OwnFile>;
}

let made = 0;

/**
 * Copies (clones where it can) every own file into `.glassbox/tmp/PID-snapshot-N/`; null when past
 * the bound or when a copy cannot be made (a full disk, links Windows will not make): then nothing
 * of it is left. A file gone since it was listed is left out.
 */
export function takeSnapshot(root: string, bound: SnapshotBound = SNAPSHOT_BOUND): Snapshot | null {
  const files = ownFiles(root);
  if (pastBound(files, bound)) return null;
  const folder = join(makeGlassboxFolder(temporaryFolder(root)), `${process.pid}-snapshot-${++made}`);
  const kept = new Map<string, OwnFile>();
  try {
    for (const file of files) if (snapshotCopy(root, folder, file)) kept.set(file.path, file);
  } catch {
    rmSync(folder, { recursive: true, force: true });
    return null;
  }
  return { folder, files: kept };
}

/** One file's copy in the snapshot; false when the file is gone. */
function snapshotCopy(root: string, folder: string, file: OwnFile): boolean {
  const copy = join(folder, file.path);
  mkdirSync(dirname(copy), { recursive: true });
  try {
    if (file.stats.isSymbolicLink()) symlinkSync(readlinkSync(join(root, file.path)), copy);
    else copyFileSync(join(root, file.path), copy, constants.COPYFILE_FICLONE);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

const byPath = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : 1);

const bytesOf = (real: string, stats: Stats) => (stats.isSymbolicLink() ? Buffer.from(readlinkSync(real)) : readFileSync(real));

/** Journals what the command changed, the snapshot's copy as what was there before; then removes the snapshot. */
export function journalSnapshot(root: string, snapshot: Snapshot, journal: ChangeJournal | undefined): AppliedChanges {
  const result: AppliedChanges = { journaled: [], ignored: 0, leftOut: [] };
  const now = new Map(ownFiles(root).map((file) => [file.path, file]));
  const record = (path: string, what: AppliedChanges["journaled"][number]["what"], stats: Stats, after: Buffer | null) => {
    journal?.saveBefore(COMMAND_TOOL, { real: join(snapshot.folder, path), relative: path, stats }, after, after !== null && stats.isSymbolicLink()).done();
    result.journaled.push({ path, what, size: after?.length ?? stats.size, link: stats.isSymbolicLink() });
  };
  try {
    for (const [path, file] of [...now].sort(byPath)) {
      const was = snapshot.files.get(path);
      const after = bytesOf(join(root, path), file.stats);
      // Created: the snapshot holds nothing at its path, so the journal says there was no file.
      if (!was) {
        record(path, "created", file.stats, after);
        continue;
      }
      const before = bytesOf(join(snapshot.folder, path), was.stats);
      const sameKind = was.stats.isSymbolicLink() === file.stats.isSymbolicLink();
      const sameBytes = sameKind && before.equals(after);
      if (sameBytes && (file.stats.isSymbolicLink() || (was.stats.mode & 0o7777) === (file.stats.mode & 0o7777))) continue;
      record(path, sameBytes ? "re-moded" : "changed", file.stats, after);
    }
    for (const [path, was] of [...snapshot.files].sort(byPath)) if (!now.has(path)) record(path, "deleted", was.stats, null);
  } catch (error) {
    if (!isDiskFull(error)) throw error;
    result.stopped = "no space left on device, so the files it changed after those named are not in the undo journal";
  } finally {
    rmSync(snapshot.folder, { recursive: true, force: true });
  }
  return result;
}
