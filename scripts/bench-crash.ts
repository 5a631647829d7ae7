#!/usr/bin/env bun
/**
 * Nothing lost when glassbox is killed (issue 40): headless runs whose scripted model edits,
 * writes, moves and deletes several large files are killed (SIGKILL) at random instants, and
 * each kill's leftovers are checked:
 *
 * - files left partial: a file holding neither its original bytes nor one of the states the
 *   script writes, in order;
 * - stray files: anything in the workspace (`.glassbox/` apart) that is neither an original nor
 *   a planned file (a temporary, say);
 * - undo failures: after `glassbox undo`, a file not back to its original bytes, a created one
 *   still there, or undo not exiting 0;
 * - unreadable sessions (and run logs): a line of `.glassbox/sessions/*` (`runs/*`) that does not
 *   parse, except a last line cut off mid-write that the session reader skips and names;
 * - temporaries left after undo under `.glassbox/tmp/`.
 *
 * The kill instants are uniform over the window in which uncut runs change files (measured
 * first), so most land while files are being written.
 *
 *   bun scripts/bench-crash.ts [--trials N] [--seed S]
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readSession } from "../src/session/store.ts";

const MAIN = join(import.meta.dir, "..", "src", "cli", "main.ts");
const TOOLS = ["edit_file", "write_file", "move_file", "delete_file"];

/** Deterministic from the seed: a trial can be played again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const lines = (label: string, count: number, marker: string) =>
  Array.from({ length: count }, (_, index) => (index === Math.floor(count / 2) ? `${marker}\n` : `${label} line ${index} of a file large enough that writing it takes a while\n`)).join("");

/** The originals, what the script does to them, and every state each path may be in while it runs (null: absent). */
function plan() {
  const originals: Record<string, string> = {
    "a.txt": lines("a", 18_000, "MARKER-A"),
    "big.txt": lines("big", 24_000, "MARKER-BIG"),
    "old-name.txt": lines("moved", 4_000, "MOVED"),
    "gone.txt": lines("gone", 4_000, "GONE"),
    "keep.txt": "never touched\n",
  };
  const bigWritten = lines("big written", 11_000, "MARKER-BIG-2");
  const aWritten = lines("a written", 11_000, "A-2");
  const fresh = lines("fresh", 11_000, "FRESH");
  const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });
  const replies = [
    { content: "", tool_calls: [call("c1", "edit_file", { path: "a.txt", old: "MARKER-A", new: "CHANGED-A" }), call("c2", "write_file", { path: "big.txt", content: bigWritten })] },
    { content: "", tool_calls: [call("c3", "move_file", { from: "old-name.txt", to: "new/name.txt" }), call("c4", "delete_file", { path: "gone.txt" }), call("c5", "write_file", { path: "fresh.txt", content: fresh })] },
    { content: "", tool_calls: [call("c6", "edit_file", { path: "big.txt", old: "MARKER-BIG-2", new: "CHANGED-BIG-2" }), call("c7", "write_file", { path: "a.txt", content: aWritten })] },
    { content: "Done." },
  ];
  const states: Record<string, Array<string | null>> = {
    "a.txt": [originals["a.txt"]!, originals["a.txt"]!.replace("MARKER-A", "CHANGED-A"), aWritten],
    "big.txt": [originals["big.txt"]!, bigWritten, bigWritten.replace("MARKER-BIG-2", "CHANGED-BIG-2")],
    "old-name.txt": [originals["old-name.txt"]!, null],
    "new/name.txt": [null, originals["old-name.txt"]!],
    "gone.txt": [originals["gone.txt"]!, null],
    "fresh.txt": [null, fresh],
    "keep.txt": [originals["keep.txt"]!],
  };
  return { originals, replies, states };
}

type Plan = ReturnType<typeof plan>;

/** Every file under `root`, relative, `.glassbox/` apart. */
function filesIn(root: string, under = ""): string[] {
  return readdirSync(join(root, under), { withFileTypes: true }).flatMap((entry) => {
    const path = under ? `${under}/${entry.name}` : entry.name;
    if (path === ".glassbox") return [];
    return entry.isDirectory() ? filesIn(root, path) : [path];
  });
}

const contentOf = (root: string, path: string) => (existsSync(join(root, path)) ? readFileSync(join(root, path), "utf8") : null);

/** The run's files: the scripted model, and a config that lets its megabytes of arguments through (caps and compaction are for a model's window). */
interface RunFiles {
  script: string;
  config: string;
}

function startRun(workspace: string, files: RunFiles) {
  const allow = TOOLS.flatMap((tool) => ["--allow", tool]);
  const argv = [MAIN, "run", "--json", "--model", `scripted:${files.script}`, "--config", files.config, "--workspace", workspace, ...allow, "edit the files"];
  return Bun.spawn([process.execPath, ...argv], { stdout: "pipe", stderr: "pipe" });
}

/** Milliseconds after spawn between which uncut runs change files: from their first model request to their end. */
async function changeWindow(template: string, files: RunFiles, plan: Plan): Promise<[number, number]> {
  const starts: number[] = [];
  const stops: number[] = [];
  for (let run = 0; run < 3; run++) {
    const workspace = freshCopy(template);
    const started = performance.now();
    const child = startRun(workspace, files);
    let text = "";
    for await (const chunk of child.stdout) {
      text += Buffer.from(chunk).toString();
      if (starts.length === run && text.includes('"kind":"model_request"')) starts.push(performance.now() - started);
    }
    stops.push(performance.now() - started);
    if ((await child.exited) !== 0) throw new Error(`an uncut run failed: ${text.slice(-500)}`);
    for (const [path, states] of Object.entries(plan.states)) {
      if (contentOf(workspace, path) !== states.at(-1)) throw new Error(`an uncut run left ${path} in another state than the script's last`);
    }
    rmSync(workspace, { recursive: true, force: true });
  }
  // The earliest end: a kill after the run ended tests nothing.
  return [Math.min(...starts), Math.min(...stops)];
}

/** A copy of the originals beside the template, so that removing the bench's folder removes every trial's. */
function freshCopy(template: string): string {
  const workspace = mkdtempSync(join(template, "..", "trial-"));
  cpSync(template, workspace, { recursive: true });
  return workspace;
}

/**
 * How many JSON Lines files in `folder` have a line that does not parse. A last line cut off
 * mid-write (a kill can stop a large write part way) is allowed when `reader` (what glassbox
 * reads such files with) skips and names it, or when nothing in glassbox reads them (null).
 */
function unreadable(folder: string, reader: ((path: string) => string[]) | null): number {
  if (!existsSync(folder)) return 0;
  return readdirSync(folder).filter((name) => {
    const path = join(folder, name);
    const text = readFileSync(path, "utf8");
    const whole = text.slice(0, text.lastIndexOf("\n") + 1);
    const torn = text.slice(whole.length);
    const parses = whole.split("\n").filter(Boolean).every((line) => {
      try {
        JSON.parse(line);
        return true;
      } catch {
        return false;
      }
    });
    const tornNamed = torn === "" || reader === null || reader(path).some((what) => what.includes("cut off mid-write"));
    return !parses || !tornNamed;
  }).length;
}

/** Files in `folder` whose last line a kill cut off. */
function tornFiles(folder: string): number {
  return existsSync(folder) ? readdirSync(folder).filter((name) => !readFileSync(join(folder, name), "utf8").endsWith("\n")).length : 0;
}

interface Tally {
  partial: number;
  stray: number;
  undoFailures: number;
  unreadableSessions: number;
  unreadableLogs: number;
  temporariesAfterUndo: number;
  tornSessionLines: number;
  tornLogLines: number;
  killedBeforeChanges: number;
  killedMidway: number;
  finishedFirst: number;
}

async function trial(template: string, files: RunFiles, plan: Plan, killAfterMs: number, tally: Tally): Promise<string[]> {
  const workspace = freshCopy(template);
  const problems: string[] = [];
  const child = startRun(workspace, files);
  const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
  const code = await child.exited;
  clearTimeout(timer);

  const planned = new Set(Object.keys(plan.states));
  const now = Object.fromEntries([...planned].map((path) => [path, contentOf(workspace, path)]));
  const progress = Object.entries(plan.states).map(([path, states]) => states.indexOf(now[path]!));
  for (const [index, path] of Object.keys(plan.states).entries()) if (progress[index] === -1) problems.push(`partial: ${path}`);
  for (const path of filesIn(workspace)) if (!planned.has(path)) problems.push(`stray: ${path}`);
  if (code === 0) tally.finishedFirst++;
  else if (progress.every((at) => at === 0)) tally.killedBeforeChanges++;
  else tally.killedMidway++;

  const sessions = join(workspace, ".glassbox", "sessions");
  const sessionProblems = unreadable(sessions, (path) => readSession(path, "bench").skipped);
  if (sessionProblems) problems.push(`unreadable sessions: ${sessionProblems}`);
  const logProblems = unreadable(join(workspace, ".glassbox", "runs"), null);
  if (logProblems) problems.push(`unreadable run logs: ${logProblems}`);
  tally.tornSessionLines += tornFiles(sessions);
  tally.tornLogLines += tornFiles(join(workspace, ".glassbox", "runs"));

  const undo = Bun.spawnSync([process.execPath, MAIN, "undo", "--workspace", workspace], { stdout: "pipe", stderr: "pipe" });
  if (undo.exitCode !== 0) problems.push(`undo exit ${undo.exitCode}: ${(undo.stdout.toString() + undo.stderr.toString()).trim().split("\n").slice(-3).join(" / ")}`);
  for (const path of planned) if (contentOf(workspace, path) !== (plan.originals[path] ?? null)) problems.push(`undo left ${path} changed`);
  for (const path of filesIn(workspace)) if (!(path in plan.originals)) problems.push(`undo left ${path}`);
  const temporaries = join(workspace, ".glassbox", "tmp");
  if (existsSync(temporaries) && readdirSync(temporaries).length) problems.push(`temporaries after undo: ${readdirSync(temporaries).join(", ")}`);

  tally.partial += problems.filter((problem) => problem.startsWith("partial")).length;
  tally.stray += problems.filter((problem) => problem.startsWith("stray")).length;
  tally.undoFailures += problems.some((problem) => problem.startsWith("undo")) ? 1 : 0;
  tally.unreadableSessions += sessionProblems;
  tally.unreadableLogs += logProblems;
  tally.temporariesAfterUndo += problems.some((problem) => problem.startsWith("temporaries")) ? 1 : 0;
  rmSync(workspace, { recursive: true, force: true });
  return problems;
}

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} needs a whole number`);
  return value;
}

export async function benchCrash(trials: number, seed: number): Promise<Tally> {
  const scenario = plan();
  const folder = mkdtempSync(join(tmpdir(), "glassbox-bench-crash-setup-"));
  const template = join(folder, "workspace");
  for (const [path, text] of Object.entries(scenario.originals)) {
    mkdirSync(join(template, path, ".."), { recursive: true });
    writeFileSync(join(template, path), text);
  }
  const files = { script: join(folder, "script.json"), config: join(folder, "glassbox.json") };
  writeFileSync(files.script, JSON.stringify({ replies: scenario.replies }));
  writeFileSync(files.config, JSON.stringify({ components: { context_management: false }, limits: { max_transcript_chars: 100_000_000 } }));
  try {
    return await killRuns(trials, seed, template, files, scenario);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function killRuns(trials: number, seed: number, template: string, files: RunFiles, scenario: Plan): Promise<Tally> {
  const [from, to] = await changeWindow(template, files, scenario);
  console.log(`crash bench: ${trials} trials, seed ${seed}; kills uniform over ${from.toFixed(0)}–${to.toFixed(0)} ms after spawn (uncut runs change files in that window)`);

  const next = random(seed);
  const tally: Tally = { partial: 0, stray: 0, undoFailures: 0, unreadableSessions: 0, unreadableLogs: 0, temporariesAfterUndo: 0, tornSessionLines: 0, tornLogLines: 0, killedBeforeChanges: 0, killedMidway: 0, finishedFirst: 0 };
  for (let index = 1; index <= trials; index++) {
    const killAfter = from + next() * (to - from);
    const problems = await trial(template, files, scenario, killAfter, tally);
    if (problems.length) console.log(`trial ${index} (kill at ${killAfter.toFixed(0)} ms): ${problems.join("; ")}`);
    else if (index % 20 === 0) console.log(`${index} trials done`);
  }

  console.log(`\nkills: ${tally.killedBeforeChanges} before any file changed, ${tally.killedMidway} with files part way through the script, ${tally.finishedFirst} after the run had ended`);
  console.log(`files left with a torn last line: ${tally.tornSessionLines} sessions (skipped and named by the session reader), ${tally.tornLogLines} run logs\n`);
  const rows: Array<[string, number]> = [
    ["files left partial", tally.partial],
    ["stray files", tally.stray],
    ["undo failures", tally.undoFailures],
    ["unreadable sessions", tally.unreadableSessions],
    ["unreadable run logs", tally.unreadableLogs],
    ["temporaries left after undo", tally.temporariesAfterUndo],
  ];
  console.log(`| over ${trials} kills (seed ${seed}) | count |\n| --- | --- |`);
  for (const [label, count] of rows) console.log(`| ${label} | ${count} |`);
  return tally;
}

if (import.meta.main) {
  const trials = option("--trials", 200);
  const seed = option("--seed", Math.floor(Math.random() * 2 ** 31));
  const tally = await benchCrash(trials, seed);
  const failures = tally.partial + tally.stray + tally.undoFailures + tally.unreadableSessions + tally.unreadableLogs + tally.temporariesAfterUndo;
  process.exit(failures ? 1 : 0);
}
