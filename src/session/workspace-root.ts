import { statSync } from "node:fs";
import { resolve } from "node:path";
import { Workspace } from "../files/workspace.ts";
import { UsageError } from "../protocol/usage-error.ts";

/** The `--workspace` folder (default: the current one), links resolved; anything but a folder is a usage error. */
export function workspaceRoot(dir: string | undefined): string {
  const folder = resolve(dir ?? ".");
  let isFolder = false;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isFolder) throw new UsageError(`workspace ${folder} is not a folder; pass --workspace DIR`);
  return new Workspace(folder).root;
}
