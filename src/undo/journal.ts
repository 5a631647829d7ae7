import { appendFileSync, copyFileSync, existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { builtOnFirstParse } from "../core/zod-start.ts";
import { glassboxFolder, makeGlassboxFolder } from "../platform/glassbox-folder.ts";
import type { ResolvedPath } from "../tools/workspace.ts";

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
      before: z.object({ copy: z.string().regex(/^\d+\.before$/), sha256, mode: z.number().int().min(0).max(0o7777).optional() }).strict().nullable(),
      /** null: the change removed the file (delete_file, or the old name of a move_file). */
      after_sha256: sha256.nullable(),
    })
    .strict();
};

/** The write announced by `seq` failed: the file was not changed. */
const failedLine = () => z.object({ kind: z.literal("change_failed"), seq: z.number().int().min(1) }).strict();

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
const JournalLine = builtOnFirstParse(() => z.discriminatedUnion("kind", [changeLine(), failedLine(), undoLine()]));

export interface Journal {
  /** The changes that happened, oldest first (announced writes that failed are left out). */
  changes: ChangeEntry[];
  undos: UndoEntry[];
}

/**
 * A run's record of the files it changed. Before each approved write the current content is
 * copied beside the journal and a line says what was there and the digest of what glassbox is
 * about to write, so a later `undo` can restore it and notice anyone else's edit since.
 * Nothing is created until the run's first write.
 */
export class ChangeJournal {
  private seq = 0;
  readonly folder: string;

  constructor(workspaceRoot: string, readonly runId: string) {
    this.folder = undoFolder(workspaceRoot, runId);
  }

  /**
   * Saves what `file` holds right now (bytes and mode), just before `after` replaces it (null: the
   * file is about to be removed). Call `failed()` on the result if the change then fails, so undo
   * does not expect a change that never happened.
   */
  saveBefore(tool: string, file: ResolvedPath, after: Uint8Array | string | null): { failed(): void } {
    makeGlassboxFolder(this.folder);
    const seq = ++this.seq;
    const copy = `${seq}.before`;
    let before: ChangeEntry["before"] = null;
    try {
      copyFileSync(file.real, join(this.folder, copy));
      before = { copy, sha256: digest(readFileSync(join(this.folder, copy))), mode: statSync(file.real).mode & 0o7777 };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    this.append({ kind: "change", seq, tool, path: file.relative, at: new Date().toISOString(), before, after_sha256: after === null ? null : digest(after) });
    return { failed: () => this.append({ kind: "change_failed", seq }) };
  }

  private append(line: z.infer<typeof JournalLine>): void {
    appendFileSync(join(this.folder, JOURNAL_FILE), JSON.stringify(line) + "\n");
  }
}

/** Appends an undo event to a run's journal. */
export function appendUndo(workspaceRoot: string, entry: UndoEntry): string {
  const path = join(undoFolder(workspaceRoot, entry.run_id), JOURNAL_FILE);
  appendFileSync(path, JSON.stringify(entry) + "\n");
  return path;
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
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((text, index) => {
      if (!text.trim()) return;
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch {
        throw new JournalError(`line ${index + 1} of .glassbox/undo/${runId}/${JOURNAL_FILE} is not JSON`);
      }
      const parsed = JournalLine.safeParse(raw);
      if (!parsed.success) throw new JournalError(`line ${index + 1} of .glassbox/undo/${runId}/${JOURNAL_FILE} is not a journal entry`);
      const line = parsed.data;
      if (line.kind === "change") changes.push(line);
      else if (line.kind === "change_failed") failed.add(line.seq);
      else undos.push(line);
    });
  return { changes: changes.filter((change) => !failed.has(change.seq)), undos };
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
