#!/usr/bin/env bun
/**
 * What the sandbox costs per check: the same trivial check (`true`) through the real runner, bare
 * (spawned directly) and in each kind that runs here, interleaved in rounds so a busy machine
 * slows every kind alike. The cost is a kind's median minus the bare median.
 *
 *   bun scripts/bench-sandbox.ts [ROUNDS]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCheck } from "../src/tools/checks.ts";
import { chooseSandbox, DIRECT } from "../src/sandbox/detect.ts";
import type { Sandbox } from "../src/sandbox/sandbox.ts";

export async function benchSandbox(rounds = 30): Promise<void> {
  const workspace = mkdtempSync(join(tmpdir(), "glassbox-bench-sandbox-"));
  const kinds: Array<[label: string, sandbox: Sandbox]> = [["bare spawn (no launcher)", DIRECT]];
  for (const kind of ["bwrap", "landlock"]) {
    const choice = chooseSandbox({ mode: "auto", network: false, env: { ...process.env, GLASSBOX_SANDBOX_KINDS: kind } });
    if (choice.info.kind === kind) kinds.push([kind, choice.sandbox]);
    else console.log(`${kind}: not available here (${choice.info.reason})`);
  }
  kinds.push(["none (launcher with subreaper only)", chooseSandbox({ mode: "off", network: false }).sandbox]);
  const check = { argv: ["true"], timeout_seconds: 30, env: [] };
  const signal = new AbortController().signal;
  const times = kinds.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (const [index, [label, sandbox]] of kinds.entries()) {
      const outcome = await runCheck(check, workspace, signal, sandbox);
      if (outcome.exitCode !== 0) throw new Error(`${label}: the check failed: ${outcome.output}`);
      times[index]!.push(outcome.seconds * 1000);
    }
  }
  rmSync(workspace, { recursive: true, force: true });
  const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
  const bare = quantile(times[0]!, 0.5);
  console.log(`\nsandbox cost per check (\`true\`, ${rounds} rounds, interleaved)\n`);
  for (const [index, [label]] of kinds.entries()) {
    const median = quantile(times[index]!, 0.5);
    const cost = index === 0 ? "" : `   cost ${(median - bare).toFixed(1).padStart(6)} ms`;
    console.log(`${label.padEnd(38)} p50 ${median.toFixed(1).padStart(6)} ms   p90 ${quantile(times[index]!, 0.9).toFixed(1).padStart(6)} ms${cost}`);
  }
}

if (import.meta.main) await benchSandbox(Number(process.argv[2] ?? 30));
