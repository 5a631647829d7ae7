import { existsSync, statSync } from "node:fs";
import { scanWorkspace } from "./workspace-scan.ts";
import { isAbsolute, join, resolve, sep } from "node:path";

/**
 * What a check may touch, as data: every kind of sandbox (bwrap, Landlock, Seatbelt) enforces
 * this same plan, and `glassbox doctor` can print it.
 */

/** Secrets in the user's home that no check may read. */
export const HIDDEN_IN_HOME = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".netrc",
  ".git-credentials",
  ".docker",
  ".kube",
  ".npmrc",
  ".pypirc",
  ".config/gh",
  ".config/glassbox",
] as const;
/** Folders of the workspace a check may read but not change: its history and glassbox's own logs. */
export const READ_ONLY_IN_WORKSPACE = [".git", ".glassbox"] as const;
export { HIDDEN_WORKSPACE_NAME } from "./workspace-scan.ts";
/** Writable in the home, so build caches keep working. */
export const WRITABLE_IN_HOME = [".cache"] as const;

/**
 * How a check or command may change the workspace: `direct` (a configured check: it writes in
 * place), `read-only` (a command a read-only rule allowed: the workspace is mounted read-only), or
 * `overlay` (a command that may write: it writes into `upper`, a copy-on-write layer over the
 * workspace mounted at `merged`, and glassbox journals and applies what it left there when it ends).
 */
export type WorkspaceAccess = { kind: "direct" } | { kind: "read-only" } | { kind: "overlay"; upper: string; work: string; merged: string };

export interface Confinement {
  workspace: string;
  access: WorkspaceAccess;
  /** Where the check starts: the workspace, or a folder in it (a command's `cwd`); the bounds stay the workspace's. */
  cwd: string;
  /** The check's private TMPDIR, fresh for each run of it. */
  tmpdir: string;
  /** Writable folders (and files): the workspace, the private TMPDIR, ~/.cache, the check's own `writable`. */
  writable: string[];
  /** Inside a writable folder, read-only again (they exist). */
  readOnly: string[];
  /** Unreadable: shown as an empty folder or file (they exist). */
  hidden: Array<{ path: string; folder: boolean }>;
  network: boolean;
}

export interface ConfinementInput {
  workspace: string;
  /** Where the check starts, inside the workspace (default: the workspace itself). */
  cwd?: string;
  home: string | undefined;
  tmpdir: string;
  network?: boolean;
  /** Extra writable paths: `~/…` is in the home, a relative path is in the workspace. */
  writable?: string[];
  /** Workspace paths that are hidden by default but this check may read (".env"). */
  expose?: string[];
  /** Default `direct`. */
  access?: WorkspaceAccess;
}

/** Where a configured path points: `~/x` in the home, relative paths in the workspace. */
export function resolveConfigured(path: string, workspace: string, home: string | undefined): string {
  if (path === "~" || path.startsWith("~/")) {
    if (!home) return resolve(workspace, path);
    return join(home, path.slice(1));
  }
  return isAbsolute(path) ? resolve(path) : resolve(workspace, path);
}

function kindOf(path: string): "folder" | "file" | null {
  try {
    return statSync(path).isDirectory() ? "folder" : "file";
  } catch {
    return null;
  }
}

export function confinement(input: ConfinementInput): Confinement {
  const { workspace, home, tmpdir } = input;
  const exposed = new Set((input.expose ?? []).map((path) => resolve(workspace, path)));
  const hidden: Confinement["hidden"] = [];
  const hide = (path: string) => {
    const kind = kindOf(path);
    if (kind && !exposed.has(path)) hidden.push({ path, folder: kind === "folder" });
  };
  if (home) for (const name of HIDDEN_IN_HOME) hide(join(home, name));
  const access = input.access ?? { kind: "direct" };
  const scan = scanWorkspace(workspace);
  for (const path of scan.secrets) hide(join(workspace, path));
  const writable = [workspace, tmpdir];
  if (home) writable.push(...WRITABLE_IN_HOME.map((name) => join(home, name)).filter(existsSync));
  for (const path of input.writable ?? []) {
    const resolved = resolveConfigured(path, workspace, home);
    if (existsSync(resolved) && !writable.includes(resolved)) writable.push(resolved);
  }
  // Read-only: neither the workspace nor a writable folder that holds it (a workspace under
  // ~/.cache) is among the writable folders, in every kind of sandbox; and there is nothing to
  // make read-only again inside it.
  const readOnly = access.kind === "read-only" ? [] : READ_ONLY_IN_WORKSPACE.map((name) => join(workspace, name)).filter(existsSync);
  const bounds = access.kind === "read-only" ? writable.filter((path) => !isWithin(workspace, path)) : writable;
  return { workspace, access, cwd: input.cwd ?? workspace, tmpdir, writable: bounds, readOnly, hidden, network: input.network ?? false };
}

function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}
