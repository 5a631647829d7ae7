import { chmodSync } from "node:fs";
import { tempFolder } from "./workspace.ts";

/** nobody:nogroup, which CI's root becomes for the sandbox tests (a laptop's user already is unprivileged). */
export const NOBODY = 65534;
export const IS_ROOT = process.getuid?.() === 0;

/** A command prefix that drops root to nobody; empty when the tests already run as a normal user. */
export function asUnprivileged(argv: string[]): string[] {
  return IS_ROOT ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...argv] : argv;
}

/** A temp folder the unprivileged user owns (mkdtemp makes it 0700 and root's when CI runs as root), removed after the run. */
export function unprivilegedFolder(purpose: string): string {
  const dir = tempFolder(purpose);
  handOver(dir);
  return dir;
}

/** Gives a path (and what is in it) to the unprivileged user; nothing to do when not root. */
export function handOver(path: string): void {
  if (!IS_ROOT) return;
  Bun.spawnSync(["chown", "-R", `${NOBODY}:${NOBODY}`, path]);
  chmodSync(path, 0o755);
}
