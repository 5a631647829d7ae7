import { readdirSync, type Dirent } from "node:fs";
import { join } from "node:path";

/** Names at any depth of the workspace that hold secrets: hidden from every check and command (unless a check lists them in `expose`). */
export const HIDDEN_WORKSPACE_NAME = /^\.env(\..+)?$/;
/** Folders the scan never enters: git's history and glassbox's own (both read-only to a command anyway). */
const NOT_ENTERED = new Set([".git", ".glassbox"]);

export interface WorkspaceScan {
  /** Workspace-relative paths of every `.env`/`.env.*` at any depth, ignored folders included. */
  secrets: string[];
}

/**
 * One walk of the workspace before a check or command: the secrets to hide, at every depth,
 * git-ignored folders (`node_modules`, `build/`) included. Links are never followed (a link cannot
 * lead the walk out, or into a loop). It costs a readdir per folder (scripts/bench-commands.ts).
 */
export function scanWorkspace(root: string): WorkspaceScan {
  const scan: WorkspaceScan = { secrets: [] };
  walk(root, "", scan);
  return scan;
}

function walk(real: string, path: string, scan: WorkspaceScan): void {
  let dirents: Dirent[];
  try {
    dirents = readdirSync(real, { withFileTypes: true });
  } catch {
    return;
  }
  for (const dirent of dirents) {
    const entryPath = path ? `${path}/${dirent.name}` : dirent.name;
    if (HIDDEN_WORKSPACE_NAME.test(dirent.name)) scan.secrets.push(entryPath);
    if (dirent.isDirectory() && !NOT_ENTERED.has(dirent.name)) walk(join(real, dirent.name), entryPath, scan);
  }
}
