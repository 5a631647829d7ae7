import { chmodSync } from "node:fs";
import { basename, join } from "node:path";
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

/**
 * A program the unprivileged user can run: `entry` and all it imports compiled into one binary
 * (Bun included) in a temp folder of its own, removed after the run. The checkout, its Bun in
 * node_modules included, may be in a folder only its owner can enter (/root, `mktemp -d`).
 */
export function compiledForUnprivileged(entry: string): string {
  const name = basename(entry, ".ts");
  const binary = join(tempFolder(`${name}-binary`), name);
  const built = Bun.spawnSync([process.execPath, "build", "--compile", entry, "--outfile", binary], { stdout: "pipe", stderr: "pipe" });
  if (built.exitCode !== 0) throw new Error(`could not compile ${name} for the unprivileged user: ${built.stderr.toString()}${built.stdout.toString()}`);
  handOver(join(binary, ".."));
  return binary;
}
