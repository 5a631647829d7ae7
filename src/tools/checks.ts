import { z } from "zod";

/** A check is a fixed argv chosen by the user; the model picks it by name and passes nothing else. */
export const CheckSchema = z
  .object({
    argv: z.array(z.string().min(1)).min(1),
    timeout_seconds: z.number().positive().default(60),
    /** Names of extra environment variables the check may see, beyond the safe few. */
    env: z.array(z.string().min(1)).default([]),
  })
  .strict();

export type Check = z.infer<typeof CheckSchema>;
export type Checks = Record<string, Check>;

/** The user's secrets stay out of a check: only these variables (and the ones it names) pass. */
const PASSED_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR"];
/** Output kept from each end of a check's output; the middle is counted and dropped. */
const KEPT_BYTES = 32 * 1024;

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
 * Runs a check without a shell, in its own process group, stdin closed. At the timeout (or when
 * the run is stopped) the whole group is killed; after a normal exit it is killed too, so no
 * process outlives its check. Output is read with a cap: head and tail kept, the middle counted.
 */
export async function runCheck(check: Check, cwd: string, signal: AbortSignal): Promise<CheckOutcome> {
  const started = performance.now();
  let child: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    const [argv, env] = withBundledBun(check.argv, checkEnvironment(check));
    child = Bun.spawn(argv, {
      cwd,
      env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
  } catch {
    return { exitCode: null, notStarted: true, timedOut: false, interrupted: false, output: "", droppedBytes: 0, seconds: 0 };
  }
  const killGroup = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  };
  let timedOut = false;
  const timer = setTimeout(() => ((timedOut = true), killGroup()), check.timeout_seconds * 1000);
  signal.addEventListener("abort", killGroup, { once: true });
  // A signal that fired before the listener was added never calls it.
  if (signal.aborted) killGroup();
  const capture = new CappedOutput(KEPT_BYTES);
  const reading = Promise.all([capture.drain(child.stdout), capture.drain(child.stderr)]);
  const exitCode = await child.exited;
  clearTimeout(timer);
  signal.removeEventListener("abort", killGroup);
  killGroup();
  await reading;
  return {
    exitCode: timedOut || signal.aborted ? null : exitCode,
    notStarted: false,
    timedOut,
    interrupted: signal.aborted && !timedOut,
    output: capture.text(),
    droppedBytes: capture.droppedBytes(),
    seconds: (performance.now() - started) / 1000,
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

  async drain(stream: ReadableStream<Uint8Array>): Promise<void> {
    for await (const chunk of stream) this.add(chunk);
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
