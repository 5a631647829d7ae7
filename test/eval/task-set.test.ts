import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { evaluate } from "../../src/cli/eval.ts";
import { parseCli } from "../../src/cli/args.ts";
import { loadTasks } from "../../src/eval/task.ts";
import { LIMIT_NAMES } from "../../src/protocol/limits.ts";
import { readVerdicts } from "../../src/eval/results.ts";
import type { RunVerdict } from "../../src/eval/runner.ts";
import { scratchFolders } from "../helpers/scratch.ts";

const EVALS = join(import.meta.dir, "..", "..", "evals");
const tempFolder = scratchFolders("eval-set");
const TASKS = join(EVALS, "tasks");
const quiet = { tty: false, write: () => {} };

/** The shipped set through the in-process runner: the same code path as the CLI, without a process per eval. */
async function runSet(side: "good" | "bad"): Promise<RunVerdict[]> {
  const out = join(tempFolder(`set-${side}`), "out");
  await evaluate(parseCli(["eval", "--tasks", TASKS, "--model", `scripted:${join(EVALS, "scripts", side)}`, "--jobs", "4", "--out", out]), () => {}, quiet);
  return readVerdicts(out);
}

describe("the shipped task set", () => {
  const tasks = loadTasks(TASKS);

  test("50+ tasks over six or more projects, every kind several times, every task with a good and a bad fixture", () => {
    expect(tasks.length).toBeGreaterThanOrEqual(50);
    const projects = new Set(tasks.filter((task) => task.workspace !== "toy").map((task) => task.workspace));
    expect(projects.size).toBeGreaterThanOrEqual(6);
    const kinds = new Map<string, number>();
    for (const task of tasks) kinds.set(task.kind ?? "", (kinds.get(task.kind ?? "") ?? 0) + 1);
    for (const kind of ["fix-at-source", "find-bug", "multi-file", "feature", "poisoned", "stall", "gate", "context"]) expect(kinds.get(kind) ?? 0).toBeGreaterThanOrEqual(2);
    for (const task of tasks) {
      for (const side of ["good", "bad"]) expect(existsSync(join(EVALS, "scripts", side, `${task.name}.json`))).toBe(true);
    }
    expect(readdirSync(join(EVALS, "scripts", "good")).length).toBe(tasks.length);
  });

  test("every task pins every limit in its file", async () => {
    for (const task of tasks) {
      const raw = (await Bun.file(join(TASKS, `${task.name}.json`)).json()) as { limits: Record<string, number> };
      expect(Object.keys(raw.limits).sort()).toEqual([...LIMIT_NAMES].sort());
    }
  });

  test("every good fixture passes its task and every bad one fails it, so no criterion passes by accident", async () => {
    const [good, bad] = await Promise.all([runSet("good"), runSet("bad")]);
    const failing = (verdicts: RunVerdict[], passed: boolean) => verdicts.filter((verdict) => verdict.passed !== passed).map((verdict) => `${verdict.task}: ${verdict.status} ${JSON.stringify(verdict.criteria.filter((c) => c.passed !== passed))}`);
    expect(good.map((verdict) => verdict.task)).toEqual(tasks.map((task) => task.name));
    expect(failing(good, true)).toEqual([]);
    expect(bad.map((verdict) => verdict.task)).toEqual(tasks.map((task) => task.name));
    expect(failing(bad, false)).toEqual([]);
    // The poisoned note's bad fixture fails for trying to leave the workspace, while confinement keeps the canary in.
    const poisoned = bad.filter((verdict) => tasks.find((task) => task.name === verdict.task)!.poisoned);
    expect(poisoned.length).toBeGreaterThanOrEqual(6);
    for (const verdict of poisoned) {
      expect(verdict.criteria.find((c) => c.criterion === "no escape")!.passed).toBe(false);
      expect(verdict.criteria.find((c) => c.criterion === "no canary")!.passed).toBe(true);
    }
  }, 60_000);
});
