import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Refusal } from "./refusal.ts";
import { requireRegularFile } from "./files.ts";
import type { ToolContext } from "./tool.ts";
import type { ResolvedPath, Workspace } from "./workspace.ts";
import { digest } from "../undo/journal.ts";
import { lineEnding, type LineEnding } from "../core/text-edit.ts";

/**
 * The one way the file tools change a file (write_file, edit_file, delete_file, move_file) and
 * undo puts one back. It keeps what the tool does not mean to change: a file that is not UTF-8
 * is refused (never re-encoded), a byte-order mark stays, a CRLF file stays CRLF, the mode
 * stays; each change is saved in the run's undo journal first; the bytes that were planned
 * (and shown for approval) are the bytes that are written.
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

/** Writes a planned text change: the file (mode, byte-order mark) as it was but for the text; journaled for undo. */
export function writePlannedText(context: ToolContext, tool: string, plan: PlannedText): void {
  stillResolvesTo(context.workspace, plan.path, plan.file, plan.argument);
  stillHolds(plan.file, plan.current?.sha256 ?? null, plan.argument);
  const bytes = plannedBytes(plan);
  journaled(context, tool, plan.file, bytes, () => replaceWhole(plan.file.real, (temporary) => writeFileSync(temporary, bytes), modeOf(plan.file.real)));
}

/** A file a tool is about to remove or move: it is the path's own regular file, not a link to one. */
export function requireOwnRegularFile(workspace: Workspace, path: string, file: ResolvedPath, argument: string): void {
  requireRegularFile(file, argument);
  if (lstatSync(join(workspace.root, path)).isSymbolicLink()) {
    throw new Refusal(`Argument \`${argument}\`: \`${path}\` is a link, and this tool only deletes or moves regular files.`);
  }
}

/** Removes a file, journaled for undo (which restores its bytes and mode). */
export function deleteJournaled(context: ToolContext, path: string, file: ResolvedPath, sha256: string): void {
  stillResolvesTo(context.workspace, path, file);
  stillHolds(file, sha256, "path");
  journaled(context, "delete_file", file, null, () => unlinkSync(file.real));
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
export function moveJournaled(context: ToolContext, move: PlannedMove): void {
  const { from, to, args } = move;
  stillResolvesTo(context.workspace, args.from, from, "from");
  stillResolvesTo(context.workspace, args.to, to, "to");
  stillHolds(from, move.fromSha256, "from");
  if (existsSync(to.real) && !args.overwrite) throw new Refusal(`Argument \`to\`: \`${to.relative}\` appeared while the call waited for approval; pass overwrite: true to replace it.`);
  stillHolds(to, move.toSha256, "to");
  const bytes = readFileSync(from.real);
  const savedTo = context.journal?.saveBefore("move_file", to, bytes);
  try {
    journaled(context, "move_file", from, null, () => {
      mkdirSync(dirname(to.real), { recursive: true });
      renameSync(from.real, to.real);
    });
  } catch (error) {
    savedTo?.failed();
    throw error;
  }
}

/** Saves what the file holds in the run's journal (when the run keeps one), then changes it. */
function journaled(context: ToolContext, tool: string, file: ResolvedPath, after: Uint8Array | null, change: () => void): void {
  const saved = context.journal?.saveBefore(tool, file, after);
  try {
    change();
  } catch (error) {
    saved?.failed();
    throw error;
  }
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
 * Fills a temporary file beside `real`, gives it `mode` (the replaced file's; null: the default
 * for a new file), then renames it over `real`: readers see the old file or the new one, never half.
 */
export function replaceWhole(real: string, fill: (temporary: string) => void, mode: number | null): void {
  mkdirSync(dirname(real), { recursive: true });
  const temporary = join(dirname(real), `.${basename(real)}.glassbox-${process.pid}.tmp`);
  try {
    fill(temporary);
    if (mode !== null) chmodSync(temporary, mode);
    renameSync(temporary, real);
  } catch (error) {
    if (existsSync(temporary)) unlinkSync(temporary);
    throw error;
  }
}
