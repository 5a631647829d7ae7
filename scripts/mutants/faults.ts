import type { Mutant } from "../mutate.ts";

/** Nothing lost when things go wrong (issue 40): kill-safe writes, a journal a kill cut off, a full disk. */
export const MUTANTS: Mutant[] = [
  // Where a write's temporary goes, and what is left of it.
  {
    name: "a write's temporary goes beside the file, in the person's tree",
    file: "src/files/temporary-files.ts",
    find: "  if (statSync(folder).dev !== statSync(dirname(real)).dev) return temporaryBeside(workspaceRoot, real);\n  return {",
    replace: "  return temporaryBeside(workspaceRoot, real);\n  return {",
  },
  {
    name: "the device is not checked: a temporary for another filesystem is written under .glassbox first",
    file: "src/files/temporary-files.ts",
    find: "if (statSync(folder).dev !== statSync(dirname(real)).dev) return",
    replace: "if (false) return",
  },
  {
    name: "a rename refused across mounts (EXDEV) is not written again beside the file",
    file: "src/files/file-write.ts",
    find: '      if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;\n',
    replace: "      throw error;\n",
  },
  {
    name: "a failed write leaves its temporary",
    file: "src/files/file-write.ts",
    find: "    rmSync(temporary.path, { force: true });\n",
    replace: "",
  },
  {
    name: "the note naming a temporary beside its file is never removed",
    file: "src/files/file-write.ts",
    find: "    temporary.release();\n",
    replace: "",
  },
  {
    name: "a failed write leaves the folders it made",
    file: "src/files/file-write.ts",
    find: "    if (madeFolder) removeEmptyFolders(dirname(real), madeFolder);\n",
    replace: "",
  },
  {
    name: "the next start leaves what a killed write left",
    file: "src/session/start-run.ts",
    find: "  removeKilledWriteLeftovers(session.workspace.root);\n",
    replace: "",
  },
  {
    name: "undo leaves what a killed write left",
    file: "src/files/restore.ts",
    find: "  removeKilledWriteLeftovers(workspace.root);\n",
    replace: "",
  },
  {
    name: "the temporaries of a glassbox still running are removed too",
    file: "src/files/temporary-files.ts",
    find: "if (!pid || processAlive(pid)) continue;",
    replace: "if (!pid) continue;",
  },
  {
    name: "a damaged note removes whatever file it names",
    file: "src/files/temporary-files.ts",
    find: "return path.startsWith(workspaceRoot + sep) && /^\\..+\\.glassbox-\\d+\\.tmp$/.test(basename(path)) ? path : null;",
    replace: "return path;",
  },
  // On the disk before the file changes.
  {
    name: "the copy for undo is not synced before the file changes",
    file: "src/files/journal.ts",
    find: "  syncFile(copy);\n",
    replace: "",
  },
  {
    name: "the journal's line is not synced before the file changes",
    file: "src/files/journal.ts",
    find: "private append(line: z.infer<typeof JournalLine>, sync = true): void {",
    replace: "private append(line: z.infer<typeof JournalLine>, sync = false): void {",
  },
  {
    name: "the new content is not synced before the rename",
    file: "src/files/file-write.ts",
    find: "    syncFile(temporary.path);\n",
    replace: "",
  },
  // The journal a kill cut off.
  {
    name: "a torn last journal line refuses the whole undo",
    file: "src/files/journal.ts",
    find: "if (line === NOT_JSON && index === last) torn =",
    replace: "if (false) torn =",
  },
  {
    name: "a damaged line in the middle of the journal is skipped as if torn",
    file: "src/files/journal.ts",
    find: "if (line === NOT_JSON && index === last) torn =",
    replace: "if (line === NOT_JSON) torn =",
  },
  {
    name: "undo appends after a torn line, which then damages the journal",
    file: "src/files/journal.ts",
    find: "  dropTornLine(path);\n",
    replace: "",
  },
  {
    name: "the torn journal line is not named to the person",
    file: "src/files/restore.ts",
    find: "return plan.torn ? [`left out ${plan.torn}: the change it announced never began`, ...lines] : lines;",
    replace: "return lines;",
  },
  {
    name: "a change is never said done",
    file: "src/files/journal.ts",
    find: 'done: () => this.appendIfPossible({ kind: "change_done", seq }, false),',
    replace: "done: () => true,",
  },
  {
    name: "a change a kill cut off before the file changed is taken for someone's edit",
    file: "src/files/restore.ts",
    find: "return unfinished.has(last.seq) ? [last.after_sha256, last.before?.sha256 ?? null] : [last.after_sha256];",
    replace: "return [last.after_sha256];",
  },
  // A full disk.
  {
    name: "a full disk is told to the model as an internal failure",
    file: "src/files/file-write.ts",
    find: "    if (isDiskFull(error)) throw new ToolFailure(",
    replace: "    if (false) throw new ToolFailure(",
  },
  {
    name: "a copy for undo cut short by a full disk is left",
    file: "src/files/journal.ts",
    find: "      // A copy cut short by a full disk, or one no line names, is of no use to undo.\n      rmSync(copy, { force: true });\n",
    replace: "",
  },
  {
    name: "the copy of a change that failed is left",
    file: "src/files/journal.ts",
    find: 'if (this.appendIfPossible({ kind: "change_failed", seq }, true)) rmSync(copy, { force: true });',
    replace: 'this.appendIfPossible({ kind: "change_failed", seq }, true);',
  },
  {
    name: "a line cut short by a full disk stays, half written",
    file: "src/platform/append-line.ts",
    find: "      takeBack(fd, size);\n",
    replace: "",
  },
  {
    name: "the event log throws on a full disk",
    file: "src/trace/event-log.ts",
    find: "return writeSoftly(this.path, () => appendLine(this.path, redact(JSON.stringify(event))));",
    replace: "appendLine(this.path, redact(JSON.stringify(event)));\n    return true;",
  },
  {
    name: "the session file throws on a full disk",
    file: "src/session/store.ts",
    find: "    writeSoftly(this.path, () => {\n      if (!this.opened) this.open();",
    replace: "    ((write: () => void) => write())(() => {\n      if (!this.opened) this.open();",
  },
  {
    name: "the saved plan throws on a full disk",
    file: "src/session/start-run.ts",
    find: 'if (event.kind === "todo") writeSoftly(progressPath(root), () => writeProgress(',
    replace: 'if (event.kind === "todo") ((_: string, write: () => void) => write())(progressPath(root), () => writeProgress(',
  },
  {
    name: "the wire log sends a request it could not log",
    file: "src/trace/wire-log.ts",
    find: "    if (!logged) throw new Error(",
    replace: "    if (false) throw new Error(",
  },
  {
    name: "a full disk under the run's records does not stop the run",
    file: "src/platform/disk-full.ts",
    find: "    this.abort.abort();\n",
    replace: "",
  },
  {
    name: "a run hears every workspace's full disk",
    file: "src/platform/disk-full.ts",
    find: "if (this.failedAt !== null || !path.startsWith(this.root + sep)) return;",
    replace: "if (this.failedAt !== null) return;",
  },
  {
    name: "a run stopped by a full disk says interrupted",
    file: "src/session/start-run.ts",
    find: 'return event.kind === "stop" && diskFull.failedAt !== null ? { ...event, status: "disk_full", reason: diskFull.reason() } : event;',
    replace: "return event;",
  },
  {
    name: "a headless run stopped by a full disk says nothing on stderr",
    file: "src/cli/run.ts",
    find: '    if (event.kind === "stop" && event.status === "disk_full") console.error(`glassbox: ${event.reason}`);\n',
    replace: "",
  },
  {
    name: "undo crashes on a file it cannot restore for a full disk",
    file: "src/files/restore.ts",
    find: "      if (!isDiskFull(error)) throw error;\n",
    replace: "      throw error;\n",
  },
  {
    name: "undo crashes when its own line meets a full disk",
    file: "src/files/restore.ts",
    find: "const recorded = writeSoftly(journal, () => appendUndo(workspace.root, entry));",
    replace: "const recorded = (appendUndo(workspace.root, entry), true);",
  },
];
