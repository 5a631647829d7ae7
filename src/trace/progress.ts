import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { glassboxFolder, makeGlassboxFolder } from "../platform/glassbox-folder.ts";
import { z } from "zod";
import { PARSE_ONCE, builtOnFirstParse } from "../protocol/zod-start.ts";

const ProgressSchema = builtOnFirstParse(() =>
  z.object({
    run_id: z.string(),
    updated_at: z.string(),
    items: z.array(z.object({ text: z.string(), status: z.enum(["pending", "in_progress", "done"]) }).strict()),
  }),
);

export type Progress = z.infer<typeof ProgressSchema>;

/** The plan kept as state: `<workspace>/.glassbox/progress.json`, rewritten whole on every change. */
export function progressPath(workspaceRoot: string): string {
  return glassboxFolder(workspaceRoot, "progress.json");
}

export function writeProgress(workspaceRoot: string, progress: Progress): void {
  const path = progressPath(workspaceRoot);
  makeGlassboxFolder(dirname(path));
  writeFileSync(`${path}.tmp`, JSON.stringify(progress, null, 2) + "\n");
  renameSync(`${path}.tmp`, path);
}

/** null when nothing was saved; throws with a readable reason when the file is broken. */
export function readProgress(workspaceRoot: string): Progress | null {
  const path = progressPath(workspaceRoot);
  if (!existsSync(path)) return null;
  const parsed = ProgressSchema.safeParse(JSON.parse(readFileSync(path, "utf8")), PARSE_ONCE);
  if (!parsed.success) throw new Error(`.glassbox/progress.json is not a saved todo list (${parsed.error.issues[0]!.message})`);
  return parsed.data;
}

/** The first message of a resumed session carries the saved list. */
export function resumeNote(progress: Progress): string {
  const list = progress.items.map((item) => `[${item.status}] ${item.text}`).join("\n");
  return `[glassbox] This session resumes earlier work (run ${progress.run_id}). Your saved todo list:\n${list}`;
}
