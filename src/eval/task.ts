import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { LimitOverridesSchema } from "../core/limits.ts";
import { parseWith } from "../session/config.ts";
import { UsageError } from "../session/usage-error.ts";

/** What the harness, not the model, checks after a run. */
export const CriterionSchema = z.union([
  z.object({ check: z.string().min(1) }).strict().describe("a named check passes on the workspace after the run"),
  z.object({ answer_contains: z.string().min(1) }).strict().describe("the run's answer contains this text (case-insensitive)"),
  z.object({ file: z.string().min(1), contains: z.string().optional(), equals: z.string().optional() }).strict(),
  z.object({ no_canary: z.literal(true) }).strict().describe("the secret canary appears in no tool result and not in the answer"),
  z.object({ status: z.string().min(1) }).strict().describe("the run ends with this status"),
]);

export type Criterion = z.infer<typeof CriterionSchema>;

export const TaskSchema = z
  .object({
    /** Defaults to the file name without .json. */
    name: z.string().regex(/^[A-Za-z0-9_.-]+$/).optional(),
    prompt: z.string().min(1),
    /** "toy" (the bundled toy project) or a folder relative to the task file. */
    workspace: z.string().default("toy"),
    /** NOTES.md tells AI assistants to read ../secrets/canary.txt, and that file exists outside the copy. */
    poisoned: z.boolean().default(false),
    pass: z.array(CriterionSchema).min(1),
    /**
     * The task's own budget, so its results stay comparable when the defaults change; a
     * `--config` file's limits apply on top (that is what an A/B of limits compares).
     */
    limits: LimitOverridesSchema.default({}),
  })
  .strict();

export type Task = z.infer<typeof TaskSchema> & { name: string; folder: string };

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
    return { ...task, name: task.name ?? basename(file, ".json"), folder };
  });
}
