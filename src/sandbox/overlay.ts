import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { makeGlassboxFolder } from "../platform/glassbox-folder.ts";
import { removeFolderForcibly, temporaryFolder } from "../files/temporary-files.ts";

/**
 * A copy-on-write layer over the workspace for a command that may write (Linux): bubblewrap
 * 0.8 (Debian 12) has no `--overlay`, so glassbox mounts one itself in a user and mount namespace
 * of its own (`unshare -Ur -m`, unprivileged on kernels from 5.11), with `userxattr`, and starts
 * bwrap inside it. The command's writes land in the upper folder, under `.glassbox/tmp/` (the
 * workspace's own file system, so applying them is a rename); the workspace is untouched until
 * glassbox journals and applies them (src/tools/command-changes.ts).
 */
export interface OverlayFolders {
  upper: string;
  work: string;
  merged: string;
}

/** Characters mount(8) reads as separators in overlay options: a workspace path holding one cannot be a layer. */
const UNSAFE_IN_OPTIONS = /[,:\\]/;

/** The script run inside the new namespace: mount the overlay (fail closed: the command never runs without it), then the sandbox. */
const MOUNT_THEN_RUN = '"$1" -t overlay overlay -o "lowerdir=$2,upperdir=$3,workdir=$4,userxattr" "$5" || exit 125; shift 5; exec "$@"';

function tool(name: string): string {
  return Bun.which(name, { PATH: process.env.PATH ?? "" }) ?? [`/usr/bin/${name}`, `/bin/${name}`].find((path) => existsSync(path)) ?? name;
}

/** The argv that runs what follows it inside a user and mount namespace in which the overlay is mounted at `merged`. */
export function overlayPrefix(folders: OverlayFolders, lower: string): string[] {
  return [tool("unshare"), "--user", "--map-root-user", "--mount", "--", "/bin/sh", "-c", MOUNT_THEN_RUN, "sh", tool("mount"), lower, folders.upper, folders.work, folders.merged];
}

export function processIds(): { uid: number; gid: number } {
  return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
}

let made = 0;

/** Fresh, empty upper, work and mount folders for one command, under `.glassbox/tmp/`. */
export function makeOverlayFolders(workspaceRoot: string): OverlayFolders {
  const base = join(makeGlassboxFolder(temporaryFolder(workspaceRoot)), `${process.pid}-command-${++made}`);
  const folders = { upper: join(base, "upper"), work: join(base, "work"), merged: join(base, "merged") };
  for (const folder of Object.values(folders)) mkdirSync(folder, { recursive: true });
  return folders;
}

/** Removes a command's overlay folders (the kernel's work folder may hold a folder without rights: removed anyway). */
export function removeOverlayFolders(folders: OverlayFolders): void {
  removeFolderForcibly(join(folders.upper, ".."));
}

const probed = new Map<string, string | null>();

/**
 * Why no overlay can be mounted over this workspace (null: it can): a kernel before 5.11, user
 * namespaces forbidden, a file system overlayfs cannot use, a path mount(8) cannot take. Tried
 * once per workspace and process, for real, with `true` as the command.
 */
export function overlayProblem(workspaceRoot: string): string | null {
  if (!probed.has(workspaceRoot)) probed.set(workspaceRoot, probe(workspaceRoot));
  return probed.get(workspaceRoot)!;
}

function probe(workspaceRoot: string): string | null {
  if (process.platform !== "linux") return "copy-on-write overlays are a Linux feature";
  if (UNSAFE_IN_OPTIONS.test(workspaceRoot)) return "the workspace's path holds a comma, colon or backslash, which mount options cannot carry";
  let folders: OverlayFolders;
  try {
    folders = makeOverlayFolders(workspaceRoot);
  } catch {
    return "glassbox cannot make its folders under .glassbox/tmp";
  }
  try {
    const run = Bun.spawnSync([...overlayPrefix(folders, workspaceRoot), "true"], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    return run.exitCode === 0 ? null : run.stderr.toString().trim().split("\n").at(-1) || `exit ${run.exitCode}`;
  } catch (error) {
    return (error as Error).message;
  } finally {
    removeOverlayFolders(folders);
  }
}
