/**
 * Real filesystems for fault tests, root or not: a command runs in a mount namespace of its own
 * (`unshare -rm`, a user namespace too, so no root is needed where user namespaces are enabled),
 * after a shell snippet mounts what it needs there (a tiny tmpfs: a disk that really fills; a
 * second filesystem or a bind mount inside a workspace). The mounts vanish with the command, so
 * the command itself looks at what happened and prints it as JSON.
 */
import { join } from "node:path";
import { required } from "./required.ts";

const SCENES = join(import.meta.dir, "fault-scenes.ts");

/**
 * Whether this machine lets a test mount a tmpfs in a namespace of its own (CI does, as root). Under
 * GLASSBOX_REQUIRE_MOUNT=1 the tests run regardless, and fail where it cannot.
 */
export const CAN_MOUNT = required("mount") || Bun.spawnSync(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;

export interface SceneResult {
  code: number;
  /** The scene's last stdout line, parsed. */
  seen: Record<string, any>;
  stderr: string;
}

/** Runs `bun test/helpers/fault-scenes.ts SCENE ...args` after `mounts` (shell) in a namespace of its own. */
export function inOwnMounts(mounts: string, scene: string, ...args: string[]): SceneResult {
  const run = Bun.spawnSync(["unshare", "-rm", "sh", "-c", `${mounts} && exec "$@"`, "sh", process.execPath, SCENES, scene, ...args], { stdout: "pipe", stderr: "pipe", env: process.env });
  const stdout = run.stdout.toString().trim();
  const stderr = run.stderr.toString();
  if (!stdout) throw new Error(`scene ${scene} printed nothing (exit ${run.exitCode}): ${stderr}`);
  return { code: run.exitCode ?? -1, seen: JSON.parse(stdout.split("\n").at(-1)!), stderr };
}

/** A tmpfs of `size` (e.g. "256k") on `folder`, made first if needed. */
export function tmpfs(folder: string, size: string): string {
  return `mkdir -p '${folder}' && mount -t tmpfs -o size=${size} tmpfs '${folder}'`;
}
