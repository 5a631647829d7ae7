import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";

/** `<workspace>/.glassbox/...`: where glassbox keeps its own files (runs, wire log, undo, sessions, state). */
export function glassboxFolder(workspaceRoot: string, ...parts: string[]): string {
  return join(workspaceRoot, ".glassbox", ...parts);
}

/**
 * Creates a folder (with its parents) and, when it lies in a `.glassbox/` that has no
 * `.gitignore`, writes one that ignores everything, so glassbox's own files never show in
 * `git status`. An existing one is left as it is: a person who wants the folder tracked edits
 * it (or empties it) once. Every place that creates something under `.glassbox/` calls this.
 */
export function makeGlassboxFolder(folder: string): string {
  mkdirSync(folder, { recursive: true });
  const parts = folder.split(sep);
  const at = parts.lastIndexOf(".glassbox");
  if (at >= 0) {
    const ignore = join(parts.slice(0, at + 1).join(sep) || sep, ".gitignore");
    if (!existsSync(ignore)) writeFileSync(ignore, "*\n");
  }
  return folder;
}
