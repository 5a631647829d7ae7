import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { confinement, type WorkspaceAccess } from "../sandbox/rules.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import { UNCONFINED } from "../sandbox/detect.ts";
import { askTreeToEnd, killTree } from "../platform/process-tree.ts";

/** A check is a fixed argv chosen by the user; the model picks it by name and passes nothing else. */
export const CheckSchema = z
  .object({
    argv: z.array(z.string().min(1)).min(1),
    timeout_seconds: z.number().positive().default(60),
    /** Names of extra environment variables the check may see, beyond the safe few. */
    env: z.array(z.string().min(1)).default([]),
    /** The sandbox keeps a check off the network unless this is set (optional, like the two below: absent is the default confinement). */
    network: z.boolean().optional(),
    /** Paths outside the workspace the check may write (`~/…` is in the home). */
    writable: z.array(z.string().min(1)).optional(),
    /** Workspace paths hidden from checks by default that this one may read (".env"). */
    expose: z.array(z.string().min(1)).optional(),
  })
  .strict();

export type Check = z.infer<typeof CheckSchema>;
export type Checks = Record<string, Check>;

/** The user's secrets stay out of a check: only these variables (and the ones it names) pass. */
const PASSED_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR"];
/** Output kept from each end of a check's output; the middle is counted and dropped. */
const KEPT_BYTES = 32 * 1024;
/** How long output is still read after the check ended or was killed, before the streams are cut. */
export const OUTPUT_GRACE_MS = 1000;

export interface CheckOutcome {
  exitCode: number | null;
  /** The command could not be started at all (not found, not executable). */
  notStarted: boolean;
  timedOut: boolean;
  interrupted: boolean;
  output: string;
  /** Bytes of output dropped from the middle (0 when all of it is kept). */
  droppedBytes: number;
  seconds: number;
  /** Seconds after the start at which the output was cut: something still held it open after the check ended. */
  outputCutAt: number | null;
}

export function checkEnvironment(check: Check, from: Record<string, string | undefined> = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...PASSED_ENV, ...check.env]) {
    const value = from[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * A check written as `bun …` on a machine without bun on PATH runs with the Bun that runs
 * glassbox: the interpreter itself, or the compiled binary acting as Bun (BUN_BE_BUN).
 */
export function withBundledBun(argv: string[], env: Record<string, string>): [string[], Record<string, string>] {
  if (argv[0] !== "bun" || Bun.which("bun", { PATH: env.PATH ?? "" })) return [argv, env];
  return [[process.execPath, ...argv.slice(1)], { ...env, BUN_BE_BUN: "1" }];
}

/**
 * Runs a check without a shell, stdin closed, in its own process group and in the sandbox. At the
 * timeout (or when the run is stopped) the tree is told to end and then killed; after a normal
 * exit it is killed too, so no process outlives its check. Output is read with a cap (head and
 * tail kept, the middle counted), and for at most OUTPUT_GRACE_MS after the end: a daemon that
 * holds the pipe open cannot hold the result. `startIn` (a folder inside `workspace`, already
 * confined by the caller) moves where it starts; the sandbox's bounds stay the workspace's.
 * `access`: how it may change the workspace (a command: read-only, or through an overlay).
 */
export async function runCheck(
  check: Check,
  workspace: string,
  signal: AbortSignal,
  sandbox: Sandbox = UNCONFINED,
  startIn: string = workspace,
  access: WorkspaceAccess = { kind: "direct" },
): Promise<CheckOutcome> {
  const started = performance.now();
  const notStarted: CheckOutcome = { exitCode: null, notStarted: true, timedOut: false, interrupted: false, output: "", droppedBytes: 0, seconds: 0, outputCutAt: null };
  const [argv, env] = withBundledBun(check.argv, checkEnvironment(check));
  // Found here, not by the sandbox's wrapper: a missing command is "could not start", whatever wraps it.
  const program = Bun.which(argv[0]!, { PATH: env.PATH ?? "", cwd: startIn });
  if (!program) return notStarted;
  const privateTmp = mkdtempSync(join(tmpdir(), "glassbox-check-"));
  try {
    const rules = confinement({ workspace, cwd: startIn, home: env.HOME, tmpdir: privateTmp, network: check.network, writable: check.writable, expose: check.expose, access });
    const launch = sandbox.command([program, ...argv.slice(1)], rules, { ...env, TMPDIR: privateTmp });
    let child: Bun.Subprocess<"ignore", "pipe", "pipe">;
    try {
      child = Bun.spawn(launch.argv, { cwd: launch.cwd, env: launch.env, stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: true });
    } catch {
      return notStarted;
    }
    return await supervise(child, check, signal, started);
  } finally {
    rmSync(privateTmp, { recursive: true, force: true });
  }
}

/**
 * The sentence a check's (or a command's) result starts with: how it ended, and what was cut.
 * `notStartedAdvice` says what to do when its program could not start.
 */
export function describeOutcome(subject: string, outcome: CheckOutcome, check: Check, notStartedAdvice = "tell the user"): string {
  const took = `${outcome.seconds.toFixed(1)}s`;
  const verdict = outcome.notStarted
    ? `could not start: its command \`${check.argv[0]}\` was not found or cannot run; ${notStartedAdvice}`
    : outcome.timedOut
      ? `timed out after ${check.timeout_seconds}s and was stopped`
      : outcome.interrupted
        ? "was stopped because the run ended"
        : outcome.exitCode === 0
          ? `passed (exit 0, ${took})`
          : `failed (exit ${outcome.exitCode}, ${took})`;
  // Said up front, so the count survives when the result is clipped for the model.
  const dropped = outcome.droppedBytes ? ` Its output was long: ${outcome.droppedBytes} bytes from the middle were dropped.` : "";
  const cut =
    outcome.outputCutAt !== null ? ` Its output was cut at ${outcome.outputCutAt.toFixed(1)}s: a process it started still held the output open after it ended.` : "";
  return `${subject} ${verdict}.${dropped}${cut}`;
}

async function supervise(child: Bun.Subprocess<"ignore", "pipe", "pipe">, check: Check, signal: AbortSignal, started: number): Promise<CheckOutcome> {
  let ending: ReturnType<typeof setTimeout> | undefined;
  // The leader (launcher, bwrap) kills what is below it on SIGTERM; the group is killed if it does not end in time.
  const end = () => {
    if (ending) return;
    askTreeToEnd(child.pid);
    ending = setTimeout(() => killTree(child.pid), OUTPUT_GRACE_MS);
  };
  let timedOut = false;
  const timer = setTimeout(() => ((timedOut = true), end()), check.timeout_seconds * 1000);
  signal.addEventListener("abort", end, { once: true });
  // A signal that fired before the listener was added never calls it.
  if (signal.aborted) end();
  const capture = new CappedOutput(KEPT_BYTES);
  const cut = new AbortController();
  const reading = Promise.all([capture.drain(child.stdout, cut.signal), capture.drain(child.stderr, cut.signal)]);
  const exitCode = await child.exited;
  clearTimeout(timer);
  clearTimeout(ending);
  signal.removeEventListener("abort", end);
  killTree(child.pid);
  let outputCutAt: number | null = null;
  let grace: ReturnType<typeof setTimeout> | undefined;
  const held = await Promise.race([reading.then(() => false), new Promise<boolean>((resolve) => (grace = setTimeout(() => resolve(true), OUTPUT_GRACE_MS)))]);
  clearTimeout(grace);
  if (held) {
    outputCutAt = (performance.now() - started) / 1000;
    cut.abort();
    await reading;
  }
  return {
    exitCode: timedOut || signal.aborted ? null : exitCode,
    notStarted: false,
    timedOut,
    interrupted: signal.aborted && !timedOut,
    output: capture.text(),
    droppedBytes: capture.droppedBytes(),
    seconds: (performance.now() - started) / 1000,
    outputCutAt,
  };
}

/** Keeps the first and last `keep` bytes of everything written to it. */
export class CappedOutput {
  private head: Uint8Array[] = [];
  private headBytes = 0;
  private tail: Uint8Array[] = [];
  private tailBytes = 0;
  private dropped = 0;

  constructor(private readonly keep: number) {}

  /** Reads the stream to its end, or until `cut` fires (then the stream is cancelled). */
  async drain(stream: ReadableStream<Uint8Array>, cut?: AbortSignal): Promise<void> {
    const reader = stream.getReader();
    const cancel = () => void reader.cancel().catch(() => {});
    cut?.addEventListener("abort", cancel, { once: true });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        this.add(value);
      }
    } catch {
      // Cancelled: what was read is kept.
    } finally {
      cut?.removeEventListener("abort", cancel);
    }
  }

  private add(chunk: Uint8Array): void {
    if (this.headBytes < this.keep) {
      const part = chunk.subarray(0, this.keep - this.headBytes);
      this.head.push(part);
      this.headBytes += part.length;
      chunk = chunk.subarray(part.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0]!.length >= this.keep) {
      this.tailBytes -= this.tail[0]!.length;
      this.dropped += this.tail.shift()!.length;
    }
  }

  /** The tail holds whole chunks, so it may run past `keep`: that excess is dropped too. */
  private tailExcess(): number {
    return Math.max(0, this.tailBytes - this.keep);
  }

  /** What is held in memory: never much more than twice `keep`, however much was written. */
  heldBytes(): number {
    return this.headBytes + this.tailBytes;
  }

  droppedBytes(): number {
    return this.dropped + this.tailExcess();
  }

  text(): string {
    const dropped = this.droppedBytes();
    const middle = dropped ? `\n[… ${dropped} bytes of output dropped …]\n` : "";
    return Buffer.concat(this.head).toString("utf8") + middle + Buffer.concat(this.tail).subarray(this.tailExcess()).toString("utf8");
  }
}
