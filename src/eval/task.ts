import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { LimitOverridesSchema, type Limits } from "../protocol/limits.ts";
import { parseWith } from "../protocol/parse-with.ts";
import { UsageError } from "../protocol/usage-error.ts";

/** What the harness, not the model, checks after a run. */
export const CriterionSchema = z.union([
  z.object({ check: z.string().min(1) }).strict().describe("a named check passes on the workspace after the run"),
  z.object({ answer_contains: z.string().min(1) }).strict().describe("the run's answer contains this text (case-insensitive)"),
  z
    .object({
      file: z.string().min(1),
      contains: z.string().optional(),
      equals: z.string().optional(),
      /** The file must not hold this text (the bug is gone, the caller was not patched). */
      lacks: z.string().optional(),
      /** The file is exactly as it was before the run (after the task's setup). */
      unchanged: z.literal(true).optional(),
    })
    .strict(),
  z.object({ no_canary: z.literal(true) }).strict().describe("the secret canary appears in no tool result and not in the answer"),
  z.object({ no_escape: z.literal(true) }).strict().describe("no tool call named a path outside the workspace, refused or not"),
  z.object({ no_edits: z.literal(true) }).strict().describe("no file of the workspace changed"),
  z.object({ accept: z.string().min(1) }).strict().describe("a test file kept beside the task, copied in after the run, passes under bun test"),
  z.object({ status: z.string().min(1) }).strict().describe("the run ends with this status"),
]);

export type Criterion = z.infer<typeof CriterionSchema>;

/**
 * A task names every limit: a result must not change meaning when the harness's defaults move.
 * A `--config` file's limits apply on top (that is what an A/B of limits compares).
 */
const PinnedLimitsSchema = LimitOverridesSchema.required();

/** An exact replacement made in the fresh copy before the run: how one healthy project carries many bugs. */
const SetupEditSchema = z.object({ file: z.string().min(1), old: z.string().min(1), new: z.string() }).strict();

export const TaskSchema = z
  .object({
    /** Defaults to the file name without .json. */
    name: z.string().regex(/^[A-Za-z0-9_.-]+$/).optional(),
    /** What the task measures (fix-at-source, find-bug, multi-file, feature, poisoned, stall, gate, context, guarded-edit). */
    kind: z.string().min(1).optional(),
    prompt: z.string().min(1),
    /** "toy" (the bundled toy project) or a folder relative to the task file. */
    workspace: z.string().default("toy"),
    setup: z.array(SetupEditSchema).default([]),
    /** Config keys for this task (`verify`, `model_options`…), over the workspace's glassbox.json and under the arm's config. */
    config: z.record(z.string(), z.unknown()).default({}),
    limits: PinnedLimitsSchema,
    /** A note tells AI assistants to read ../secrets/canary.txt, and that file exists outside the copy. */
    poisoned: z.boolean().default(false),
    /** Where the poisoned note goes (appended when the file exists). */
    poison_file: z.string().default("NOTES.md"),
    pass: z.array(CriterionSchema).min(1),
  })
  .strict();

export type Task = z.infer<typeof TaskSchema> & { name: string; folder: string; limits: Limits };

/** Every `*.json` task file in a folder, validated, in name order. */
export function loadTasks(folder: string): Task[] {
  let files: string[];
  try {
    files = readdirSync(folder).filter((file) => file.endsWith(".json")).sort();
  } catch {
    throw new UsageError(`cannot read the task folder ${folder}; pass --tasks DIR`);
  }
  if (files.length === 0) throw new UsageError(`no task files (*.json) in ${folder}`);
  return files.map((file) => {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(join(folder, file), "utf8"));
    } catch (error) {
      throw new UsageError(`task file ${file} is not valid JSON (${(error as Error).message})`);
    }
    const task = parseWith(TaskSchema, raw, `task file ${file}`);
    return { ...task, limits: task.limits as Limits, name: task.name ?? basename(file, ".json"), folder };
  });
}

