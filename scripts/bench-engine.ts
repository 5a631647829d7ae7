#!/usr/bin/env bun
/**
 * The harness's own cost per tool call: validation, confinement, rules and the log line, with the
 * tool's work itself taken out (a probe tool that resolves its path and returns at once). A real
 * read_file is measured beside it for scale.
 *
 *   bun scripts/bench-engine.ts [CALLS]
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { Checkpoint } from "../src/core/checkpoint.ts";
import { Policy, parseRule } from "../src/core/policy.ts";
import { systemClock } from "../src/protocol/clock.ts";
import { Workspace } from "../src/files/workspace.ts";
import { TOOL_NAMES, defaultTools } from "../src/tools/index.ts";
import { defineTool } from "../src/tools/tool.ts";
import { EventLog } from "../src/trace/event-log.ts";
import { argumentsText } from "../src/protocol/messages.ts";

const CALLS = Number(process.argv[2] ?? 20_000);

const root = mkdtempSync(join(tmpdir(), "glassbox-bench-"));
mkdirSync(join(root, "src", "deep", "er"), { recursive: true });
writeFileSync(join(root, "src", "deep", "er", "file.ts"), "export const x = 1;\n".repeat(40));

/** Confines its path like every file tool, then does nothing: what is left is the harness. */
const probe = defineTool({
  name: "read_file",
  description: "probe",
  schema: z.object({ path: z.string().min(1).max(1000), start: z.number().int().min(1).optional() }).strict(),
  needsApproval: false,
  async plan(args, { workspace }) {
    const file = workspace.resolve(args.path);
    return { target: file.relative, execute: async () => "ok" };
  },
});

const rules = (texts: string[]) => texts.map((text) => parseRule(text, TOOL_NAMES));
const policy = new Policy(rules(["read_file", "run_check:tests", "write_file:src/**"]), rules(["write_file:**/*.lock", "read_file:secrets/**"]));
const log = new EventLog(join(root, ".glassbox", "runs", "bench.jsonl"));

async function measure(label: string, checkpoint: Checkpoint): Promise<void> {
  const args = JSON.stringify({ path: "src/deep/er/file.ts", start: 1 });
  const times = new Float64Array(CALLS);
  const signal = new AbortController().signal;
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    const verdict = await checkpoint.handle({ id: `c${i}`, name: "read_file", arguments: args }, signal);
    log.write({
      kind: "tool_call",
      step: 1,
      id: `c${i}`,
      tool: "read_file",
      arguments: argumentsText(args),
      decision: verdict.decision,
      reason: verdict.reason,
      result_chars: verdict.content.length,
      result: verdict.content,
    });
    times[i] = performance.now() - started;
    if (verdict.decision !== "allowed") throw new Error(`bench call was ${verdict.decision}: ${verdict.reason}`);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 1000;
  const mean = (times.reduce((a, b) => a + b, 0) / CALLS) * 1000;
  console.log(`${label.padEnd(44)} mean ${mean.toFixed(1).padStart(7)} µs   p50 ${at(0.5).toFixed(1).padStart(7)} µs   p99 ${at(0.99).toFixed(1).padStart(7)} µs`);
}

const base = { workspace: new Workspace(root), clock: systemClock, policy, maxResultChars: 2000, execute: true };
console.log(`${CALLS} tool calls each, through the checkpoint and the JSONL log\n`);
await measure("harness only (validate+confine+rules+log)", new Checkpoint({ ...base, tools: [probe] }));
await measure("read_file end to end (40-line file)", new Checkpoint({ ...base, tools: defaultTools({}) }));
rmSync(root, { recursive: true, force: true });

// A check's own start dominates a run_check call; the sandbox adds to it.
await (await import("./bench-sandbox.ts")).benchSandbox();
