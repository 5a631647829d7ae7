import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Refusal, ToolFailure } from "../protocol/refusal.ts";
import { requireRegularFile } from "./reading.ts";
import type { ResolvedPath, Workspace } from "./workspace.ts";
import { digest, type ChangeJournal } from "./journal.ts";
import { lineEnding, type LineEnding } from "./text-edit.ts";
import { isDiskFull } from "../platform/disk-full.ts";
import { syncFile } from "../platform/append-line.ts";
import { temporaryBeside, temporaryFor, type Temporary } from "./temporary-files.ts";

/**
 * The one way the file tools change a file (write_file, edit_file, delete_file, move_file) and
 * undo puts one back. It keeps what the tool does not mean to change: a file that is not UTF-8
 * is refused (never re-encoded), a byte-order mark stays, a CRLF file stays CRLF, the mode
 * stays; each change is saved in the run's undo journal first (on the disk before the file
 * changes); the bytes that were planned (and shown for approval) are the bytes that are written.
 * A kill at any instant leaves each file old or new and nothing else in the person's tree; a full
 * disk leaves the file unchanged and is named in the tool's result.
 */

/** Files larger than this are not changed as text (read whole, diffed for approval). */
export const MAX_TEXT_CHANGE_BYTES = 2 * 1024 * 1024;

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** What a change keeps of the file it replaces. */
export interface TextFacts {
  bom: boolean;
  /** The file's line ending: CRLF when most of its line breaks are CRLF. */
  eol: LineEnding;
}

export interface TextFile {
  /** The text, byte-order mark left out, line endings as they are. */
  text: string;
  facts: TextFacts;
  /** Digest of the bytes as read: the file must still hold them when the change is written. */
  sha256: string;
}

/** Reads a text file a tool is about to change; refused when it is binary, too large or not UTF-8. */
export function readTextFile(file: ResolvedPath, argument = "path"): TextFile {
  requireRegularFile(file, argument);
  if (file.stats!.size > MAX_TEXT_CHANGE_BYTES) {
    throw new Refusal(`Argument \`${argument}\`: \`${file.relative}\` is larger than ${MAX_TEXT_CHANGE_BYTES} bytes; this tool only changes smaller files.`);
  }
  const bytes = readFileSync(file.real);
  if (bytes.includes(0)) throw new Refusal(`Argument \`${argument}\`: \`${file.relative}\` is a binary file, which this tool does not change.`);
  const bom = bytes.subarray(0, 3).equals(BOM);
  let text: string;
  try {
    text = UTF8.decode(bom ? bytes.subarray(3) : bytes);
  } catch {
    throw new Refusal(
      `Argument \`${argument}\`: \`${file.relative}\` is not UTF-8 text (another encoding such as Latin-1), and glassbox never re-encodes a file, so it is left unchanged; tell the user it needs editing by hand.`,
    );
  }
  return { text, facts: { bom, eol: lineEnding(text) }, sha256: digest(bytes) };
}

/** A file's content for the approval diff: its text, or a note when it is not UTF-8 text or too large to show. */
export function shownText(bytes: Buffer): string {
  const note = `[${bytes.length} bytes that are not shown: ${bytes.length > MAX_TEXT_CHANGE_BYTES ? "too large" : "not text"}]`;
  if (bytes.length > MAX_TEXT_CHANGE_BYTES || bytes.includes(0)) return note;
  try {
    return UTF8.decode(bytes.subarray(0, 3).equals(BOM) ? bytes.subarray(3) : bytes);
  } catch {
    return note;
  }
}

/** A text change worked out in preflight: exactly what is shown for approval and then written. */
export interface PlannedText {
  file: ResolvedPath;
  /** What the argument named, to resolve again right before writing. */
  path: string;
  argument: string;
  /** The file as read (null: there is no file yet). */
  current: TextFile | null;
  /** The new text, byte-order mark left out (it is added back when the file had one). */
  after: string;
}

/** The bytes a planned change writes: the text as UTF-8, with the byte-order mark when the file had one. */
export function plannedBytes(plan: PlannedText): Buffer {
  const text = Buffer.from(plan.after, "utf8");
  return plan.current?.facts.bom ? Buffer.concat([BOM, text]) : text;
}

/**
 * Resolves a path again right before writing: approval can take minutes, and a folder swapped
 * for a link meanwhile must not carry the write somewhere preflight never checked.
 */
export function stillResolvesTo(workspace: Workspace, path: string, planned: ResolvedPath, argument = "path"): void {
  const now = workspace.resolve(path, argument);
  if (now.real !== planned.real) throw new Refusal(`Argument \`${argument}\`: where \`${planned.relative}\` leads changed while the call waited for approval; make the call again.`);
}

/** Refuses when the file no longer holds what preflight read: writing would undo someone's change. */
function stillHolds(file: ResolvedPath, sha256: string | null, argument: string): void {
  let now: string | null = null;
  try {
    now = digest(readFileSync(file.real));
  } catch (error) {
    // Something that cannot be read as a file (a folder made meanwhile) is a change too.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") now = "unreadable";
  }
  if (now !== sha256) throw new Refusal(`Argument \`${argument}\`: \`${file.relative}\` changed while the call waited for approval; read it again and redo the call.`);
}

/** What a write needs of the call it serves: the workspace, and the journal that makes it undoable (a ToolContext fits). */
export interface WriteContext {
  workspace: Workspace;
  journal?: ChangeJournal;
}

/** Writes a planned text change: the file (mode, byte-order mark) as it was but for the text; journaled for undo. */
export function writePlannedText(context: WriteContext, tool: string, plan: PlannedText): void {
  stillResolvesTo(context.workspace, plan.path, plan.file, plan.argument);
  stillHolds(plan.file, plan.current?.sha256 ?? null, plan.argument);
  const bytes = plannedBytes(plan);
  const root = context.workspace.root;
  journaled(context, [[tool, plan.file, bytes]], `\`${plan.file.relative}\` (argument \`${plan.argument}\`) was not written and is unchanged`, () =>
    replaceWhole(root, plan.file.real, (temporary) => writeFileSync(temporary, bytes), modeOf(plan.file.real)),
  );
}

/** A file a tool is about to remove or move: it is the path's own regular file, not a link to one. */
export function requireOwnRegularFile(workspace: Workspace, path: string, file: ResolvedPath, argument: string): void {
  requireRegularFile(file, argument);
  if (lstatSync(join(workspace.root, path)).isSymbolicLink()) {
    throw new Refusal(`Argument \`${argument}\`: \`${path}\` is a link, and this tool only deletes or moves regular files.`);
  }
}

/** Removes a file, journaled for undo (which restores its bytes and mode). */
export function deleteJournaled(context: WriteContext, path: string, file: ResolvedPath, sha256: string): void {
  stillResolvesTo(context.workspace, path, file);
  stillHolds(file, sha256, "path");
  journaled(context, [["delete_file", file, null]], `\`${file.relative}\` (argument \`path\`) was not deleted`, () => unlinkSync(file.real));
}

export interface PlannedMove {
  from: ResolvedPath;
  to: ResolvedPath;
  args: { from: string; to: string; overwrite?: boolean };
  /** Digest of the file being moved, and of the target it replaces (null: none). */
  fromSha256: string;
  toSha256: string | null;
}

/**
 * Moves a file by renaming it (bytes and mode go with it), journaled as two changes: the old
 * name removed and the new one written, so undo puts both back.
 */
export function moveJournaled(context: WriteContext, move: PlannedMove): void {
  const { from, to, args } = move;
  stillResolvesTo(context.workspace, args.from, from, "from");
  stillResolvesTo(context.workspace, args.to, to, "to");
  stillHolds(from, move.fromSha256, "from");
  if (existsSync(to.real) && !args.overwrite) throw new Refusal(`Argument \`to\`: \`${to.relative}\` appeared while the call waited for approval; pass overwrite: true to replace it.`);
  stillHolds(to, move.toSha256, "to");
  const bytes = readFileSync(from.real);
  const changes: Announced[] = [["move_file", to, bytes], ["move_file", from, null]];
  journaled(context, changes, `\`${from.relative}\` (argument \`from\`) was not moved to \`${to.relative}\``, () => {
    mkdirSync(dirname(to.real), { recursive: true });
    renameSync(from.real, to.real);
  });
}

/** A change the journal is told of first: the tool, the file, and the bytes it will hold (null: removed). */
type Announced = [tool: string, file: ResolvedPath, after: Uint8Array | null];

/**
 * Saves what each file holds in the run's journal (when the run keeps one), then makes the
 * change, then says it was made; a change that fails is said to have failed. A full disk is
 * told to the model as `unchanged` says (one clause naming the file and its argument).
 */
function journaled(context: WriteContext, announced: Announced[], unchanged: string, change: () => void): void {
  const saved: Array<{ done(): void; failed(): void }> = [];
  try {
    for (const [tool, file, after] of announced) if (context.journal) saved.push(context.journal.saveBefore(tool, file, after));
    change();
  } catch (error) {
    for (const each of saved) each.failed();
    if (isDiskFull(error)) throw new ToolFailure(`Failed: no space left on device, so ${unchanged}; tell the user the disk is full.`, "no space left on device");
    throw error;
  }
  for (const each of saved) each.done();
}

/** A file's permission bits; null when there is no file. */
export function modeOf(real: string): number | null {
  try {
    return statSync(real).mode & 0o7777;
  } catch {
    return null;
  }
}

/**
 * Fills a temporary file, gives it `mode` (the replaced file's; null: the default for a new file),
 * puts it on the disk, then renames it over `real`: readers see the old file or the new one,
 * never half, and a kill leaves the temporary only under `.glassbox/tmp/` (see temporary-files.ts).
 * On failure nothing is left: no temporary, no folder made for the file.
 */
export function replaceWhole(workspaceRoot: string, real: string, fill: (temporary: string) => void, mode: number | null): void {
  const madeFolder = mkdirSync(dirname(real), { recursive: true });
  try {
    try {
      fillAndRename(temporaryFor(workspaceRoot, real), real, fill, mode);
    } catch (error) {
      // One device seen through two mounts (a bind mount) refuses a rename across them too.
      if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
      fillAndRename(temporaryBeside(workspaceRoot, real), real, fill, mode);
    }
  } catch (error) {
    if (madeFolder) removeEmptyFolders(dirname(real), madeFolder);
    throw error;
  }
}

function fillAndRename(temporary: Temporary, real: string, fill: (temporary: string) => void, mode: number | null): void {
  try {
    fill(temporary.path);
    if (mode !== null) chmodSync(temporary.path, mode);
    syncFile(temporary.path);
    renameSync(temporary.path, real);
  } catch (error) {
    rmSync(temporary.path, { force: true });
    throw error;
  } finally {
    temporary.release();
  }
}

/** Removes `folder` and its parents up to `top`, the first folder a failed write made, while they are empty. */
function removeEmptyFolders(folder: string, top: string): void {
  for (let at = folder; at.startsWith(top); at = dirname(at)) {
    try {
      rmdirSync(at);
    } catch {
      return;
    }
  }
}
