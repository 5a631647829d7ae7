import { copyFileSync, existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { builtOnFirstParse } from "../protocol/zod-start.ts";
import { glassboxFolder, makeGlassboxFolder } from "../platform/glassbox-folder.ts";
import { appendLine, syncFile, syncFolder } from "../platform/append-line.ts";
import type { ResolvedPath } from "./workspace.ts";

/** `<workspace>/.glassbox/undo/`: one folder per run that changed files. No tool can touch it. */
export function undoRoot(workspaceRoot: string): string {
  return glassboxFolder(workspaceRoot, "undo");
}

export function undoFolder(workspaceRoot: string, runId: string): string {
  return join(undoRoot(workspaceRoot), runId);
}

export const JOURNAL_FILE = "journal.jsonl";

export function digest(bytes: Uint8Array | string): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

/** One file change, written before the write: what was there (a saved copy, or nothing) and what glassbox wrote. */
const changeLine = () => {
  const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
  return z
    .object({
      kind: z.literal("change"),
      seq: z.number().int().min(1),
      tool: z.string(),
      path: z.string().min(1),
      at: z.string(),
      /** null: there was no file. `mode`: its permission bits (absent in journals written before they were kept). */
      /** `link`: it was a symbolic link (a command's change), and the copy holds the link's text. */
      before: z
        .object({ copy: z.string().regex(/^\d+\.before$/), sha256, mode: z.number().int().min(0).max(0o7777).optional(), link: z.literal(true).optional() })
        .strict()
        .nullable(),
      /** null: the change removed the file (delete_file, or the old name of a move_file). */
      after_sha256: sha256.nullable(),
      /** The change left a symbolic link (a command made it): `after_sha256` is the digest of its text. */
      after_link: z.literal(true).optional(),
    })
    .strict();
};

/** The write announced by `seq` failed: the file was not changed. */
const failedLine = () => z.object({ kind: z.literal("change_failed"), seq: z.number().int().min(1) }).strict();

/** The write announced by `seq` was made. A change with neither line was cut off by a kill: the file holds what was there before it, or after. */
const doneLine = () => z.object({ kind: z.literal("change_done"), seq: z.number().int().min(1) }).strict();

export const UNDO_ACTIONS = ["restored", "removed", "unchanged", "skipped"] as const;

/** A `glassbox undo` (or `u` in the TUI): the event in the journal, also the contract's `undo` event. */
const undoLine = () =>
  z
    .object({
      kind: z.literal("undo"),
      run_id: z.string(),
      at: z.string(),
      force: z.boolean(),
      files: z.array(
        z
          .object({
            path: z.string(),
            action: z.enum(UNDO_ACTIONS),
            reason: z.string().optional(),
            /** With --force: where the content that was overwritten (or removed) was kept. */
            kept: z.string().optional(),
          })
          .strict(),
      ),
    })
    .strict();

export type ChangeEntry = z.infer<ReturnType<typeof changeLine>>;
export type UndoEntry = z.infer<ReturnType<typeof undoLine>>;
const JournalLine = builtOnFirstParse(() => z.discriminatedUnion("kind", [changeLine(), failedLine(), doneLine(), undoLine()]));

export interface Journal {
  /** The changes that happened, oldest first (announced writes that failed are left out). */
  changes: ChangeEntry[];
  /** Changes announced and then neither done nor failed: a kill cut them off, before or after the file changed. */
  unfinished: Set<number>;
  undos: UndoEntry[];
  /** A last line cut off mid-write (what a killed glassbox leaves), left out: what it announced never began. */
  torn: string | null;
}

/**
 * A run's record of the files it changed. Before each approved write the current content is
 * copied beside the journal and a line says what was there and the digest of what glassbox is
 * about to write, so a later `undo` can restore it and notice anyone else's edit since. The copy
 * and the line are on the disk (fsync) before the file changes, so a kill or a power cut at any
 * instant leaves a journal that describes every change begun. Nothing is created until the
 * run's first write.
 */
export class ChangeJournal {
  private seq = 0;
  readonly folder: string;

  constructor(workspaceRoot: string, readonly runId: string) {
    this.folder = undoFolder(workspaceRoot, runId);
  }

  /**
   * Saves what `file` holds right now (bytes and mode), just before `after` replaces it (null: the
   * file is about to be removed). Call `done()` on the result once the change is made, or
   * `failed()` if it fails, so undo does not expect a change that never happened. When the copy
   * or the line cannot be written (a full disk), neither is left and the error is thrown.
   */
  saveBefore(tool: string, file: ResolvedPath, after: Uint8Array | string | null, afterLink = false): { done(): void; failed(): void } {
    makeGlassboxFolder(this.folder);
    const seq = ++this.seq;
    const copy = join(this.folder, `${seq}.before`);
    try {
      const before = keepCopy(file.real, copy);
      const after_sha256 = after === null ? null : digest(after);
      this.append({ kind: "change", seq, tool, path: file.relative, at: new Date().toISOString(), before, after_sha256, ...(afterLink ? { after_link: true as const } : {}) });
      // The journal file is new with the run's first change: its name must be on the disk too.
      if (seq === 1) syncFolder(this.folder);
    } catch (error) {
      // A copy cut short by a full disk, or one no line names, is of no use to undo.
      rmSync(copy, { force: true });
      throw error;
    }
    return {
      // Not synced: a lost `done` line only makes undo accept the file as it was before the change too.
      done: () => this.appendIfPossible({ kind: "change_done", seq }, false),
      failed: () => {
        if (this.appendIfPossible({ kind: "change_failed", seq }, true)) rmSync(copy, { force: true });
      },
    };
  }

  private append(line: z.infer<typeof JournalLine>, sync = true): void {
    appendLine(join(this.folder, JOURNAL_FILE), JSON.stringify(line), { sync });
  }

  /** For the lines after a change: one that cannot be written leaves the change unfinished, which undo handles. */
  private appendIfPossible(line: z.infer<typeof JournalLine>, sync: boolean): boolean {
    try {
      this.append(line, sync);
      return true;
    } catch {
      return false;
    }
  }
}

/** Copies what `real` holds to `copy` (a link's text, for a link a command replaces), on the disk; null when there is no file. */
function keepCopy(real: string, copy: string): ChangeEntry["before"] {
  try {
    if (lstatSync(real).isSymbolicLink()) {
      const text = readlinkSync(real);
      writeFileSync(copy, text);
      syncFile(copy);
      return { copy: basename(copy), sha256: digest(text), link: true };
    }
    copyFileSync(real, copy);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  syncFile(copy);
  return { copy: basename(copy), sha256: digest(readFileSync(copy)), mode: statSync(real).mode & 0o7777 };
}

/** Appends an undo event to a run's journal, after a line a killed glassbox left cut off (read and named by then). */
export function appendUndo(workspaceRoot: string, entry: UndoEntry): string {
  const path = join(undoFolder(workspaceRoot, entry.run_id), JOURNAL_FILE);
  dropTornLine(path);
  appendLine(path, JSON.stringify(entry), { sync: true });
  return path;
}

/** Takes off a last line that is cut off: a line after it would turn it into a damaged line in the middle. */
function dropTornLine(path: string): void {
  const whole = readFileSync(path, "utf8").trimEnd();
  const start = whole.lastIndexOf("\n") + 1;
  if (journalLine(whole.slice(start)) === NOT_JSON) truncateSync(path, Buffer.byteLength(whole.slice(0, start)));
}

/** A journal that cannot be read as written: undo stops rather than guess. */
export class JournalError extends Error {}

/** Reads and validates a run's journal; null when that run changed no file. */
export function readJournal(workspaceRoot: string, runId: string): Journal | null {
  const path = join(undoFolder(workspaceRoot, runId), JOURNAL_FILE);
  if (!existsSync(path)) return null;
  const changes: ChangeEntry[] = [];
  const undos: UndoEntry[] = [];
  const failed = new Set<number>();
  const done = new Set<number>();
  const lines = readFileSync(path, "utf8").split("\n");
  const last = lines.findLastIndex((text) => text.trim() !== "");
  let torn: string | null = null;
  lines.forEach((text, index) => {
    if (!text.trim()) return;
    const line = journalLine(text);
    const where = `line ${index + 1} of .glassbox/undo/${runId}/${JOURNAL_FILE}`;
    // Only the last line can be cut off by a kill; a damaged line before it is not guessed around.
    if (line === NOT_JSON && index === last) torn = `${where}, cut off mid-write (${Buffer.byteLength(text)} bytes: glassbox ended while writing it)`;
    else if (typeof line === "string") throw new JournalError(`${where} ${line}`);
    else if (line.kind === "change") changes.push(line);
    else if (line.kind === "change_failed") failed.add(line.seq);
    else if (line.kind === "change_done") done.add(line.seq);
    else undos.push(line);
  });
  const made = changes.filter((change) => !failed.has(change.seq));
  return { changes: made, unfinished: new Set(made.filter((change) => !done.has(change.seq)).map((change) => change.seq)), undos, torn };
}

const NOT_JSON = "is not JSON";

/** A journal line, or why it is not one. */
function journalLine(text: string): z.infer<typeof JournalLine> | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
  const parsed = JournalLine.safeParse(raw);
  return parsed.success ? parsed.data : "is not a journal entry";
}

/** Runs with a journal, newest first: by run id, which starts with the run's start to the second, then by the first change. */
export function journaledRuns(workspaceRoot: string): string[] {
  let names: string[];
  try {
    names = readdirSync(undoRoot(workspaceRoot));
  } catch {
    return [];
  }
  const firstChange = (name: string) => {
    const text = readFileSync(join(undoRoot(workspaceRoot), name, JOURNAL_FILE), "utf8");
    return /"at":"([^"]*)"/.exec(text)?.[1] ?? "";
  };
  const stamp = (name: string) => name.split("-")[0] ?? name;
  return names
    .filter((name) => existsSync(join(undoRoot(workspaceRoot), name, JOURNAL_FILE)))
    .map((name) => ({ name, key: `${stamp(name)} ${firstChange(name)}` }))
    .sort((a, b) => (a.key === b.key ? (a.name < b.name ? 1 : -1) : a.key < b.key ? 1 : -1))
    .map((run) => run.name);
}

/** How many files a run changed (0 when none, or when its journal cannot be read). */
export function changedFiles(workspaceRoot: string, runId: string): number {
  try {
    return new Set(readJournal(workspaceRoot, runId)?.changes.map((change) => change.path)).size;
  } catch {
    return 0;
  }
}
