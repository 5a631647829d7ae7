/**
 * Killing a check's whole process tree, per platform. On POSIX the check leads its own process
 * group (spawned detached), so one negative-pid kill reaches the group; Windows has no process
 * groups, so taskkill walks the tree by parent id.
 */

export interface ProcessTreeDeps {
  platform: NodeJS.Platform;
  kill: (pid: number, signal: NodeJS.Signals) => void;
  /** Runs a program to its end (taskkill on Windows). */
  run: (argv: string[]) => void;
}

export const SYSTEM_DEPS: ProcessTreeDeps = {
  platform: process.platform,
  kill: (pid, signal) => process.kill(pid, signal),
  run: (argv) => void Bun.spawnSync(argv, { stdin: "ignore", stdout: "ignore", stderr: "ignore" }),
};

/** Kills the tree led by `pid` at once: the group on POSIX, `taskkill /T /F` on Windows. */
export function killTree(pid: number, deps: ProcessTreeDeps = SYSTEM_DEPS): void {
  if (deps.platform === "win32") return deps.run(["taskkill", "/T", "/F", "/PID", String(pid)]);
  try {
    deps.kill(-pid, "SIGKILL");
  } catch {
    // The group is gone already.
  }
}

/**
 * Asks the tree's leader to end it (a launcher or bwrap kills everything below it on SIGTERM).
 * Windows has no SIGTERM worth the name and its tree falls apart once the leader is gone, so
 * there the whole tree is killed at once.
 */
export function askTreeToEnd(pid: number, deps: ProcessTreeDeps = SYSTEM_DEPS): void {
  if (deps.platform === "win32") return killTree(pid, deps);
  try {
    deps.kill(pid, "SIGTERM");
  } catch {
    // Gone already.
  }
}
