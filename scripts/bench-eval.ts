#!/usr/bin/env bun
/**
 * Wall time of eval against a fake OpenAI-compatible server that answers from the shipped good
 * fixtures after a delay per reply (a stand-in for a model server with parallel slots):
 * --jobs 1 against --jobs 4 on a few tasks, then the whole shipped set at --jobs 1 and --jobs 8.
 *
 *   bun scripts/bench-eval.ts [DELAY_MS]      (default 100 ms per reply)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evaluate } from "../src/cli/eval.ts";
import { parseCli } from "../src/cli/args.ts";
import { readVerdicts } from "../src/eval/results.ts";
import { scriptedServer } from "../test/helpers/scripted-server.ts";

const DELAY_MS = Number(process.argv[2] ?? 100);
const EVALS = join(import.meta.dir, "..", "evals");
const TASKS = join(EVALS, "tasks");
const server = scriptedServer(TASKS, join(EVALS, "scripts", "good"), DELAY_MS);
const scratch = mkdtempSync(join(tmpdir(), "glassbox-bench-eval-"));

async function timed(jobs: number, label: string): Promise<void> {
  const out = join(scratch, `${label}-jobs-${jobs}`);
  const started = performance.now();
  await evaluate(parseCli(["eval", "--tasks", TASKS, "--model", `llamacpp:${server.url}`, "--jobs", String(jobs), "--out", out]), () => {}, { tty: false, write: () => {} });
  const seconds = (performance.now() - started) / 1000;
  const verdicts = readVerdicts(out);
  console.log(`${label} --jobs ${jobs}: ${verdicts.length} runs, ${verdicts.filter((verdict) => verdict.passed).length} passed, ${seconds.toFixed(1)} s, most requests at once ${server.maxInFlight()}`);
}

try {
  console.log(`fake server: ${DELAY_MS} ms before each reply`);
  for (const jobs of [1, 4, 8]) await timed(jobs, "shipped set");
} finally {
  server.stop();
  rmSync(scratch, { recursive: true, force: true });
}
