import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { redact } from "../trace/redact.ts";
import { basename, join, resolve } from "node:path";
import { createHash } from "node:crypto";
import { UsageError } from "../protocol/usage-error.ts";
import type { RunVerdict } from "./runner.ts";
import type { Task } from "./task.ts";
import { canonicalJson } from "../protocol/canonical.ts";

export const RESULTS = "results.json";
export const MANIFEST = "eval.json";
/** In an eval's output folder with several arms: their names, each a results folder below it. */
export const ARMS = "arms.json";

export interface Shard {
  index: number;
  count: number;
}

/** What one results folder (one arm) was run with: enough to resume it and to merge it with its other shards. */
export interface Manifest {
  version: 1;
  arm: string;
  model: string;
  base_url?: string;
  /** The arm's config file's content (null: none). */
  config: Record<string, unknown> | null;
  seeds: number[];
  shard: Shard | null;
  /** Every task of the set, not only this shard's, and a digest of the task files. */
  tasks: string[];
  task_digest: string;
  /** A replay: the recorded results folder whose replies it plays. */
  replay?: string;
}

/** One arm's results, from one or more folders. */
export interface ArmResults {
  label: string;
  manifest: Manifest | null;
  folders: string[];
  verdicts: RunVerdict[];
}

export function taskDigest(tasks: Task[]): string {
  const hash = createHash("sha256");
  // Key order differs between a task read from its file and from the copy beside the results.
  for (const task of tasks) hash.update(canonicalJson({ ...task, folder: undefined })).update("\n");
  return hash.digest("hex").slice(0, 16);
}

/** The task × seed list, and the part of it a shard runs: every N-th item, starting at the K-th. */
export function planRuns<T>(tasks: T[], seeds: number[], shard: Shard | null): Array<[T, number]> {
  const all = tasks.flatMap((task) => seeds.map((seed) => [task, seed] as [T, number]));
  return shard ? all.filter((_, index) => index % shard.count === shard.index - 1) : all;
}

/** Written through a rename, so a killed eval never leaves half a file. */
export function writeJson(path: string, value: unknown): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, redact(JSON.stringify(value, null, 2)) + "\n");
  renameSync(temporary, path);
}

export function readManifest(folder: string): Manifest | null {
  const path = join(folder, MANIFEST);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Manifest) : null;
}

export function readVerdicts(folder: string): RunVerdict[] {
  const path = join(folder, RESULTS);
  if (!existsSync(path)) throw new UsageError(`${folder} has no ${RESULTS}: is it the output folder of glassbox eval?`);
  return JSON.parse(readFileSync(path, "utf8")) as RunVerdict[];
}

/** An eval's output folder with several arms stands for its arm folders, in their order. */
export function expandFolders(paths: string[]): string[] {
  return paths.flatMap((path) => {
    const folder = resolve(path);
    const arms = join(folder, ARMS);
    if (!existsSync(arms)) return [folder];
    return (JSON.parse(readFileSync(arms, "utf8")) as { arms: string[] }).arms.map((arm) => join(folder, arm));
  });
}

/**
 * Results folders grouped into arms (same arm name and model: the shards of one eval, or runs
 * on several machines), in the order they first appear. Folders of one arm must come from the
 * same task set and seeds and must not hold the same task and seed twice.
 */
export function mergeArms(paths: string[]): ArmResults[] {
  const groups = new Map<string, ArmResults>();
  for (const folder of expandFolders(paths)) {
    const manifest = readManifest(folder);
    const verdicts = readVerdicts(folder);
    const key = manifest ? `${manifest.arm}\u0000${manifest.model}` : folder;
    const group = groups.get(key);
    if (!group) {
      groups.set(key, { label: manifest?.arm ?? basename(folder), manifest, folders: [folder], verdicts: [...verdicts] });
      continue;
    }
    const first = group.manifest!;
    const mismatch =
      first.task_digest !== manifest!.task_digest ? "task set" : JSON.stringify(first.seeds) !== JSON.stringify(manifest!.seeds) ? "seeds" : null;
    if (mismatch) throw new UsageError(`${folder} and ${group.folders[0]} are both arm "${first.arm}" but ran different ${mismatch}; merge only shards of one eval`);
    const seen = new Set(group.verdicts.map(runKey));
    const overlap = verdicts.find((verdict) => seen.has(runKey(verdict)));
    if (overlap) throw new UsageError(`${folder} and ${group.folders.join(", ")} both hold ${overlap.task} seed ${overlap.seed} of arm "${first.arm}"; pass each shard once`);
    group.folders.push(folder);
    group.verdicts.push(...verdicts);
  }
  const arms = [...groups.values()];
  for (const arm of arms) sortByPlan(arm);
  // Two arms of one name on different models are told apart by the model.
  const names = arms.map((arm) => arm.label);
  for (const arm of arms) if (arm.manifest && names.filter((name) => name === arm.label).length > 1) arm.label = `${arm.label} (${shortModel(arm.manifest.model)})`;
  return arms;
}

/** `scripted:/long/path/good` reads as `good`; server specs stay whole. */
function shortModel(model: string): string {
  return /^(scripted|replay):/.test(model) ? `${model.split(":")[0]} ${basename(model.slice(model.indexOf(":") + 1))}` : model;
}

const runKey = (verdict: RunVerdict) => `${verdict.task}\u0000${verdict.seed}`;

/** Merged shards read in the task set's order, as one unsharded run would have written them. */
function sortByPlan(arm: ArmResults): void {
  const order = new Map((arm.manifest?.tasks ?? []).map((task, index) => [task, index]));
  const at = (verdict: RunVerdict) => order.get(verdict.task) ?? Number.MAX_SAFE_INTEGER;
  arm.verdicts.sort((a, b) => at(a) - at(b) || (a.task < b.task ? -1 : a.task > b.task ? 1 : 0) || a.seed - b.seed);
}
