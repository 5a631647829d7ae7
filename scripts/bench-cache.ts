#!/usr/bin/env bun
/**
 * How much of each prompt the model server must process again: a long task (read 30 files of
 * ~3.9k characters one by one, then answer) against a fake llama-server on 127.0.0.1 that keeps
 * the previous prompt's cache as llama-server does (longest common prefix of the rendered prompt,
 * tools block first), at 8k, 16k and 32k-token windows. Prints, per window: requests, the content
 * the run must send at least once, the characters reprocessed, their ratio, compactions, and the
 * largest prompt against the window; exits 1 when a target is missed.
 *
 *   bun scripts/bench-cache.ts ['{"whole_share": 0.2}']    (context policy over the defaults, to compare)
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Checkpoint } from "../src/core/checkpoint.ts";
import { systemClock } from "../src/core/clock.ts";
import { SUMMARY_REQUEST } from "../src/core/context.ts";
import { ContextPolicySchema, DEFAULT_CONTEXT_POLICY } from "../src/core/discipline.ts";
import type { AgentEvent } from "../src/core/events.ts";
import { resolveLimits } from "../src/core/limits.ts";
import { runAgent } from "../src/core/loop.ts";
import { Policy } from "../src/core/policy.ts";
import { LlamaCppModel } from "../src/model/llamacpp.ts";
import { DEFAULT_MODEL_OPTIONS } from "../src/model/options.ts";
import { assemble, collectLayers } from "../src/prompt/layers.ts";
import { defaultTools } from "../src/tools/index.ts";
import { Workspace } from "../src/tools/workspace.ts";
import { startCacheServer } from "../test/helpers/cache-server.ts";

const FILES = 30;
const POLICY = ContextPolicySchema.parse({ ...DEFAULT_CONTEXT_POLICY, ...JSON.parse(process.argv[2] ?? "{}") });
const WINDOWS = [8192, 16384, 32768];
/** reprocessed / content the issue asks for at each window. */
const TARGETS: Record<number, number> = { 8192: 2.0, 16384: 1.6, 32768: 1.5 };

/** About 3.9k characters of varied prose, different in every file. */
function fileText(n: number): string {
  const words = ["cache", "prefix", "token", "window", "server", "prompt", "slot", "batch", "result", "model", "laptop", "prefill"];
  const lines: string[] = [];
  for (let line = 0; line < 60; line++) {
    const picked = Array.from({ length: 9 }, (_, w) => words[(n * 7 + line * 3 + w * 5) % words.length]);
    lines.push(`${String(line + 1).padStart(2, "0")} file ${n} ${picked.join(" ")}.`.padEnd(64, "."));
  }
  return lines.join("\n") + "\n";
}

interface Figures {
  window: number;
  requests: number;
  content: number;
  reprocessed: number;
  elided: number;
  summarized: number;
  largestPrompt: number;
  readAll: boolean;
  completed: boolean;
  allWhole: boolean;
}

async function play(window: number): Promise<Figures> {
  const root = mkdtempSync(join(tmpdir(), "glassbox-bench-cache-"));
  mkdirSync(join(root, "notes"));
  for (let n = 1; n <= FILES; n++) writeFileSync(join(root, "notes", `file-${String(n).padStart(2, "0")}.md`), fileText(n));
  let steps = 0;
  const server = startCacheServer(window, (messages) => {
    if (messages.at(-1)?.content === SUMMARY_REQUEST) return { text: `Task: read the notes. Read file-01 to file-${String(steps).padStart(2, "0")} so far; nothing unusual yet. Remaining: the rest.` };
    steps++;
    if (steps <= FILES) return { call: { name: "read_file", arguments: { path: `notes/file-${String(steps).padStart(2, "0")}.md` } } };
    return { text: `All ${FILES} notes are read; every one talks about the prompt cache.` };
  });
  const limits = resolveLimits({});
  const checkpoint = new Checkpoint({
    tools: defaultTools({}),
    workspace: new Workspace(root),
    clock: systemClock,
    policy: new Policy([], []),
    maxResultChars: limits.max_result_chars,
    execute: true,
  });
  const events: AgentEvent[] = [];
  try {
    for await (const event of runAgent({
      runId: `bench-cache-${window}`,
      task: `Read every file in notes/ one by one, in order, then say in one sentence what they are about.`,
      systemPrompt: assemble(collectLayers(root)),
      model: new LlamaCppModel("llamacpp", server.url, DEFAULT_MODEL_OPTIONS),
      checkpoint,
      offerTools: true,
      limits,
      clock: systemClock,
      workspace: root,
      replyTokenCap: DEFAULT_MODEL_OPTIONS.max_tokens,
      contextWindow: window,
      discipline: { context: POLICY },
    })) {
      events.push(event);
    }
  } finally {
    server.stop();
    rmSync(root, { recursive: true, force: true });
  }
  const reads = events.filter((event): event is Extract<AgentEvent, { kind: "tool_call" }> => event.kind === "tool_call" && event.tool === "read_file" && event.decision === "allowed");
  const sentResults = new Set(server.records.flatMap((record) => record.messages.filter((message) => message.role === "tool").map((message) => message.content)));
  const stop = events.at(-1);
  return {
    window,
    requests: server.records.length,
    content: reads.reduce((sum, event) => sum + event.result.length, 0),
    reprocessed: server.records.reduce((sum, record) => sum + record.chars - record.reused, 0),
    elided: events.filter((event) => event.kind === "context_elided").length,
    summarized: events.filter((event) => event.kind === "context_summarized").length,
    largestPrompt: Math.max(...server.records.map((record) => record.promptTokens)),
    readAll: new Set(reads.map((event) => event.arguments)).size === FILES,
    completed: stop?.kind === "stop" && stop.status === "completed",
    allWhole: reads.every((event) => !event.result.includes("characters cut") && sentResults.has(event.result)),
  };
}

const k = (n: number) => `${(n / 1000).toFixed(0)}k`;
const rows: Figures[] = [];
for (const window of WINDOWS) rows.push(await play(window));

console.log("| window | requests | content | reprocessed | reprocessed / content | target | compactions (elided + summarized) | largest prompt / window | all read, completed, each whole once |");
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
let missed = 0;
for (const row of rows) {
  const ratio = row.reprocessed / row.content;
  const ok = ratio <= TARGETS[row.window]! && row.largestPrompt <= row.window && row.readAll && row.completed && row.allWhole;
  if (!ok) missed++;
  console.log(
    `| ${row.window.toLocaleString("en")} | ${row.requests} | ${k(row.content)} | ${k(row.reprocessed)} | ${ratio.toFixed(2)} | ≤ ${TARGETS[row.window]!.toFixed(1)} ${ok ? "met" : "MISSED"} | ` +
      `${row.elided + row.summarized} (${row.elided} + ${row.summarized}) | ${row.largestPrompt.toLocaleString("en")} / ${row.window.toLocaleString("en")} | ${[row.readAll, row.completed, row.allWhole].map((yes) => (yes ? "yes" : "NO")).join(", ")} |`,
  );
}
process.exit(missed ? 1 : 0);
