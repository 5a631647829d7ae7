#!/usr/bin/env bun
/**
 * What glassbox's command mechanism (issue #45) adds to a command, on a 1,000-file workspace (the
 * toy project and 1,000 small files in 50 folders, a git repository): the same command through the
 * real run_command tool in bwrap, three ways, interleaved in rounds so a busy machine slows each
 * alike:
 *   - in place: bwrap writing straight into the workspace (what a configured check does);
 *   - read-only: as a read-only rule (the built-in git ones) runs it;
 *   - journaled: over the copy-on-write overlay, its changes journaled and applied after it.
 * The overhead is a way's median minus the in-place median. Commands: `true`, and the toy
 * project's test command (`bun test`).
 *
 *   bun scripts/bench-commands.ts [ROUNDS]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copyToyWorkspace } from "../src/cli/demo.ts";
import { chooseSandbox } from "../src/sandbox/detect.ts";
import { makeRunCommand } from "../src/tools/run_command.ts";
import { runCheck } from "../src/tools/checks.ts";
import { Workspace } from "../src/files/workspace.ts";
import { systemClock } from "../src/protocol/clock.ts";
import { ChangeJournal } from "../src/files/journal.ts";
import { overlayProblem } from "../src/sandbox/overlay.ts";
import type { Sandbox } from "../src/sandbox/sandbox.ts";

const FILES = 1_000;

function workspaceOf1000Files(): string {
  const parent = mkdtempSync(join(tmpdir(), "glassbox-bench-commands-"));
  const root = copyToyWorkspace(parent);
  for (let index = 0; index < FILES; index++) {
    const folder = join(root, "data", `d${index % 50}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${index}.txt`), `file ${index}\n`);
  }
  for (const args of [["init", "-q"], ["add", "."], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "bench"]]) Bun.spawnSync(["git", ...args], { cwd: root });
  return root;
}

type Way = "in place" | "read-only" | "journaled";

async function once(way: Way, argv: string[], root: string, sandbox: Sandbox, journal: ChangeJournal): Promise<number> {
  const signal = new AbortController().signal;
  const started = performance.now();
  if (way === "in place") {
    const outcome = await runCheck({ argv, timeout_seconds: 120, env: [] }, root, signal, sandbox);
    if (outcome.notStarted) throw new Error(`${argv[0]} could not start`);
  } else {
    const plan = await makeRunCommand(sandbox).plan({ argv } as never, { workspace: new Workspace(root), clock: systemClock, signal, todo: [], journal });
    plan.readOnly = way === "read-only";
    await plan.execute();
  }
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function benchCommands(rounds = 15): Promise<void> {
  const choice = chooseSandbox({ mode: "auto", network: false, env: { ...process.env, GLASSBOX_SANDBOX_KINDS: "bwrap" } });
  if (choice.info.kind !== "bwrap") return console.log(`bwrap is not available here (${choice.info.reason}); nothing to measure`);
  const root = workspaceOf1000Files();
  const problem = overlayProblem(root);
  if (problem) console.log(`no overlay here (${problem}): "journaled" runs in place`);
  const journal = new ChangeJournal(root, "bench");
  const ways: Way[] = ["in place", "read-only", "journaled"];
  console.log(`\nper command on a ${FILES}-file workspace (the toy project + ${FILES} files), bwrap, ${rounds} rounds, medians\n`);
  console.log("| command | in place | read-only | journaled (overlay + apply) | overhead, journaled |");
  console.log("| --- | --- | --- | --- | --- |");
  let worst = -Infinity;
  for (const argv of [["true"], ["bun", "test"]]) {
    const times = new Map<Way, number[]>(ways.map((way) => [way, []]));
    for (let round = 0; round < rounds; round++) for (const way of ways) times.get(way)!.push(await once(way, argv, root, choice.sandbox, journal));
    const [inPlace, readOnly, journaled] = ways.map((way) => median(times.get(way)!));
    const over = (value: number) => `${value - inPlace! >= 0 ? "+" : ""}${(value - inPlace!).toFixed(1)} ms`;
    console.log(`| \`${argv.join(" ")}\` | ${inPlace!.toFixed(1)} ms | ${readOnly!.toFixed(1)} ms (${over(readOnly!)}) | ${journaled!.toFixed(1)} ms | ${over(journaled!)} |`);
    worst = Math.max(worst, journaled! - inPlace!);
  }
  // The contract's closing line: the larger of the two commands' overheads.
  console.log(`\noverhead: ${Math.round(worst)} ms per command (${FILES} files)`);
  rmSync(join(root, ".."), { recursive: true, force: true });
}

if (import.meta.main) await benchCommands(Number(process.argv[2] ?? 15));
