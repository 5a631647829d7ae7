/**
 * Scenes the fault tests run in a process of their own: inside a mount namespace (own-mount.ts),
 * where the mounts exist only for this process, or to be killed mid-write. Each prints what it
 * saw as one JSON line, for the test to judge.
 *
 *   bun fault-scenes.ts SCENE ARGS...
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { gate } from "../tools/harness.ts";
import { ChangeJournal, JOURNAL_FILE, undoFolder } from "../../src/files/journal.ts";
import { temporaryFor, temporaryBeside } from "../../src/files/temporary-files.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { appendLine } from "../../src/platform/append-line.ts";
import { applyUndo, outcomeLines } from "../../src/files/restore.ts";
import { applyCommandChanges } from "../../src/tools/command-changes.ts";
import { journaledReport } from "../../src/tools/journaled-command.ts";

export const RUN_ID = "20260101T000000-faults";
const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");

/** Every file under `root`, workspace-relative, `.glassbox/` apart. */
export function filesIn(root: string, under = ""): string[] {
  return readdirSync(join(root, under), { withFileTypes: true }).flatMap((entry) => {
    const path = under ? `${under}/${entry.name}` : entry.name;
    if (path === ".glassbox") return [];
    return entry.isDirectory() ? filesIn(root, path) : [path];
  });
}

const listing = (folder: string) => (existsSync(folder) ? readdirSync(folder).sort() : []);

/** Fills the disk `folder` is on, then frees `free` bytes: the next writes meet a full disk there. */
function fillDisk(folder: string, free: number): void {
  const filler = join(folder, "filler");
  const chunk = Buffer.alloc(64 * 1024, 1);
  let size = 0;
  try {
    for (;;) writeFileSync(filler, chunk, { flag: "a" }), (size += chunk.length);
  } catch {
    // Full: the file holds what fitted, its size as stat says.
  }
  truncateSync(filler, Math.max(0, Bun.file(filler).size - free));
}

function setUpWorkspace(root: string, files: Record<string, string>): void {
  mkdirSync(root, { recursive: true });
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
}

/**
 * A tool's write meets a full disk: when saving the copy for undo (`copy`), when writing the new
 * content (`temp`), or when writing a new file in folders it made for it (`folder`).
 */
async function toolOnFullDisk(disk: string, where: "copy" | "temp" | "folder") {
  const root = join(disk, "ws");
  const old = "old line\n".repeat(where === "copy" ? 4_500 : 900);
  setUpWorkspace(root, { "notes.txt": old });
  const g = gate(root, { allow: ["write_file"] });
  g.checkpoint.journal = new ChangeJournal(new Workspace(root).root, RUN_ID);
  fillDisk(disk, where === "copy" ? 16 * 1024 : 24 * 1024);
  const path = where === "folder" ? "new/deeper/notes.txt" : "notes.txt";
  const verdict = await g.call("write_file", { path, content: "new line\n".repeat(where === "copy" ? 1 : 4_500) });
  const journal = join(undoFolder(root, RUN_ID), JOURNAL_FILE);
  return {
    top: readdirSync(root).sort(),
    decision: verdict.decision,
    content: verdict.content,
    unchanged: readFileSync(join(root, "notes.txt"), "utf8") === old,
    files: filesIn(root),
    undo: listing(undoFolder(root, RUN_ID)),
    journal: existsSync(journal) ? readFileSync(journal, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line).kind) : [],
    temporaries: listing(join(root, ".glassbox", "tmp")),
  };
}

/**
 * Applying a command's overlay layer meets a full disk: the copy for undo of its first change does
 * not fit. Hand-made layer on the same disk (as `.glassbox/tmp/` is): a changed file, a new one.
 */
function applyOnFullDisk(disk: string) {
  const root = join(disk, "ws");
  const old = "old line\n".repeat(4_500);
  setUpWorkspace(root, { "a.txt": old, "b.txt": "b\n" });
  const upper = join(disk, "upper");
  setUpWorkspace(upper, { "a.txt": "new\n", "c.txt": "made\n" });
  fillDisk(disk, 16 * 1024);
  const applied = applyCommandChanges(root, upper, new ChangeJournal(new Workspace(root).root, RUN_ID));
  return {
    said: journaledReport(applied).note,
    unchanged: readFileSync(join(root, "a.txt"), "utf8") === old,
    files: filesIn(root).sort(),
    undo: listing(undoFolder(root, RUN_ID)),
  };
}

/** A headless run whose own records (session, event log) meet a full disk. */
async function runOnFullDisk(disk: string) {
  const root = join(disk, "ws");
  setUpWorkspace(root, { "README.md": "# a project\n" });
  const script = join(disk, "script.json");
  const big = "x".repeat(60 * 1024);
  writeFileSync(script, JSON.stringify({ replies: [{ content: "", tool_calls: [{ id: "c1", name: "write_file", arguments: { path: "big.txt", content: big } }] }, { content: "done" }] }));
  // The session, log and wire log of the start have room; the reply carrying 60 KB of arguments has not.
  fillDisk(disk, 32 * 1024);
  const child = Bun.spawnSync([process.execPath, MAIN, "run", "--json", "--model", `scripted:${script}`, "--workspace", root, "--allow", "write_file", "write it"], { stdout: "pipe", stderr: "pipe" });
  const records = (folder: string) => listing(join(root, ".glassbox", folder)).map((name) => wholeLines(join(root, ".glassbox", folder, name)));
  return {
    code: child.exitCode,
    events: child.stdout.toString().split("\n").filter(Boolean).map((line) => JSON.parse(line)),
    stderr: child.stderr.toString(),
    logs: records("runs"),
    sessions: records("sessions"),
    files: filesIn(root),
    temporaries: listing(join(root, ".glassbox", "tmp")),
  };
}

/** Whether every line of a JSON Lines file parses and the file ends with a newline (or is empty). */
function wholeLines(path: string): boolean {
  const text = readFileSync(path, "utf8");
  if (text !== "" && !text.endsWith("\n")) return false;
  return text.split("\n").filter(Boolean).every((line) => {
    try {
      JSON.parse(line);
      return true;
    } catch {
      return false;
    }
  });
}

/** A write into `mnt/` of the workspace, which another mount covers (another filesystem, or a bind mount of the same one). */
async function writeAcrossMount(root: string) {
  const g = gate(root, { allow: ["write_file"] });
  const temporary = temporaryFor(new Workspace(root).root, join(new Workspace(root).root, "mnt", "x.txt"));
  temporary.release();
  const planned = relative(root, temporary.path);
  const verdict = await g.call("write_file", { path: "mnt/x.txt", content: "across\n" });
  return {
    planned,
    decision: verdict.decision,
    content: verdict.content,
    written: readFileSync(join(root, "mnt", "x.txt"), "utf8"),
    files: filesIn(root),
    temporaries: listing(join(root, ".glassbox", "tmp")),
  };
}

/**
 * Writes `a.txt` once, then again; the second write's temporary is a FIFO made in advance (its
 * name: this process's pid and the second temporary it makes), so the write blocks mid-way until
 * the test reads from it, and the test kills this process there.
 */
async function hangMidWrite(root: string) {
  const g = gate(root, { allow: ["write_file"] });
  g.checkpoint.journal = new ChangeJournal(new Workspace(root).root, RUN_ID);
  await g.call("write_file", { path: "a.txt", content: "first write\n" });
  const fifo = join(root, ".glassbox", "tmp", `${process.pid}-2.tmp`);
  Bun.spawnSync(["mkfifo", fifo]);
  console.log(JSON.stringify({ fifo }));
  const verdict = await g.call("write_file", { path: "a.txt", content: "second write\n".repeat(50_000) });
  return { finished: verdict.content };
}

/** `undo` on a disk with no room left: the restore and the undo's own line meet a full disk. */
async function undoOnFullDisk(disk: string) {
  const root = join(disk, "ws");
  setUpWorkspace(root, { "notes.txt": "old line\n".repeat(4_500) });
  const g = gate(root, { allow: ["write_file"] });
  g.checkpoint.journal = new ChangeJournal(new Workspace(root).root, RUN_ID);
  await g.call("write_file", { path: "notes.txt", content: "short\n" });
  fillDisk(disk, 0);
  const { plan, entry, log } = applyUndo(new Workspace(root), RUN_ID, { force: false });
  return {
    lines: outcomeLines(plan, entry!),
    log,
    unchanged: readFileSync(join(root, "notes.txt"), "utf8") === "short\n",
    files: filesIn(root),
    temporaries: listing(join(root, ".glassbox", "tmp")),
  };
}

/** An append that meets a full disk, to a file of whole lines. */
function appendOnFullDisk(disk: string) {
  const path = join(disk, "log.jsonl");
  writeFileSync(path, '{"line":1}\n');
  fillDisk(disk, 8 * 1024);
  let error = "";
  try {
    appendLine(path, JSON.stringify({ line: 2, text: "x".repeat(64 * 1024) }));
  } catch (thrown) {
    error = (thrown as NodeJS.ErrnoException).code ?? String(thrown);
  }
  return { error, text: readFileSync(path, "utf8") };
}

/** Makes a temporary beside a file, as a write on another filesystem does, and is killed before it is renamed. */
function killedBeside(root: string) {
  const temporary = temporaryBeside(root, join(root, "sub", "b.txt"));
  writeFileSync(temporary.path, "half of it");
  console.log(JSON.stringify({ temporary: relative(root, temporary.path) }));
  process.kill(process.pid, "SIGKILL");
}

const SCENES: Record<string, (...args: string[]) => unknown> = {
  "tool-full-disk": (disk, where) => toolOnFullDisk(disk!, where as "copy" | "temp" | "folder"),
  "append-full-disk": (disk) => appendOnFullDisk(disk!),
  "undo-full-disk": (disk) => undoOnFullDisk(disk!),
  "run-full-disk": (disk) => runOnFullDisk(disk!),
  "write-across-mount": (root) => writeAcrossMount(root!),
  "hang-mid-write": (root) => hangMidWrite(root!),
  "killed-beside": (root) => killedBeside(root!),
  "apply-full-disk": (disk) => applyOnFullDisk(disk!),
};

if (import.meta.main) {
  const [scene, ...args] = process.argv.slice(2);
  console.log(JSON.stringify(await SCENES[scene!]!(...args)));
}
