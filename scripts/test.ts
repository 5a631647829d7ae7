#!/usr/bin/env bun
/**
 * `npm test`: the whole suite on every core. bun test's own --parallel runs the files in one
 * process per core, the slowest first by test/timings.json (each file's measured time; `npm test --
 * --update-timings` measures them again), each file in a fresh global as it would run alone (with
 * --no-isolate a file's memoized temp folders, a CA or a binary, were removed when the file ended
 * while later files still used them, and files saw each other's loaded modules); GLASSBOX_TEST_SHARED
 * lets both processes share what is built once per run (the binary, the release:
 * test/helpers/shared-once.ts).
 *
 *   bun scripts/test.ts [bun test arguments]   e.g. test/core, -t pattern
 *   bun scripts/test.ts --quick                for the edit-test cycle: no compiled binaries (tmux,
 *                                              release) and no real llama-server; never CI's check
 *   GLASSBOX_TEST_JOBS=1                       one process, as a bare `bun test`
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";

export const TIMINGS = "test/timings.json";

/**
 * Each test's time limit unless it sets its own. Many tests start real processes (servers,
 * binaries, sandboxes): under a second job on both cores they take several times as long, and
 * bun's 5 s failed them for the load alone (and a test that times out has its processes killed,
 * a shared llama-server among them). A hanging test still fails. Given on the command line:
 * setDefaultTimeout in the preload holds for the first file only.
 */
export const TEST_TIMEOUT_MS = 30_000;

/** The `bun test` command line for `jobs` processes, `extra` passed through. */
export function testCommand(jobs: number, extra: string[]): string[] {
  const parallel = jobs > 1 ? [`--parallel=${jobs}`, `--timings=${TIMINGS}`] : [];
  return [process.execPath, "test", `--timeout=${TEST_TIMEOUT_MS}`, ...parallel, ...extra];
}

export function jobsFrom(env: Record<string, string | undefined>, cores: number): number {
  const asked = env.GLASSBOX_TEST_JOBS;
  if (asked === undefined || asked === "") return Math.max(1, cores);
  const jobs = Number(asked);
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`GLASSBOX_TEST_JOBS must be a whole number of at least 1, not "${asked}"`);
  return jobs;
}

if (import.meta.main) {
  const shared = mkdtempSync(join(tmpdir(), "glassbox-test-shared-"));
  const started = performance.now();
  try {
    const jobs = jobsFrom(process.env, availableParallelism());
    const args = process.argv.slice(2);
    const quick = args.includes("--quick") ? { GLASSBOX_SKIP_E2E: "1", GLASSBOX_SKIP_LLAMA: "1" } : {};
    const child = Bun.spawn(testCommand(jobs, args.filter((arg) => arg !== "--quick")), {
      cwd: join(import.meta.dir, ".."),
      env: { ...process.env, ...quick, GLASSBOX_TEST_SHARED: shared },
      stdio: ["inherit", "inherit", "inherit"],
    });
    // Ctrl-C reaches the whole process group; the runner waits for bun test to finish its clean-up.
    process.on("SIGINT", () => {});
    const code = await child.exited;
    console.log(`tests: ${((performance.now() - started) / 1000).toFixed(0)} s in ${jobs} process(es)`);
    process.exitCode = code;
  } finally {
    rmSync(shared, { recursive: true, force: true });
  }
}
