import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { becomeSubreaper, restrictSelf, terminateWithParent } from "./landlock.ts";
import type { Confinement } from "./rules.ts";
import type { Sandbox } from "./sandbox.ts";
import { LAUNCHER_COMMAND } from "./launcher-command.ts";

/**
 * The process between glassbox and a check on Linux without bwrap: it becomes a subreaper (so a
 * daemon that double-forks or calls setsid is still its descendant), optionally confines itself
 * with Landlock, runs the check, and when the check exits or it is told to stop (SIGTERM, or
 * glassbox dying) kills every descendant before it exits itself.
 */

export const LAUNCHER_FILE = import.meta.path;

export interface LaunchPayload {
  argv: string[];
  /** Where the check runs. The launcher itself starts elsewhere, so Bun never reads the workspace's .env or bunfig.toml. */
  cwd: string;
  /** null: no Landlock, only the subreaper (sandbox "none" or "off"). */
  rules: Confinement | null;
  /** The check's environment. The launcher's own has no BUN_BE_BUN, or the compiled binary would start as Bun, not as the launcher. */
  env: Record<string, string>;
}

/** The environment variable that carries the payload: not argv, which every user can read in /proc. */
export const PAYLOAD_VARIABLE = "GLASSBOX_LAUNCH";

/** The argv that runs the launcher: the compiled binary answers a hidden command, a checkout runs this file. */
export function launcherArgv(): string[] {
  const compiled = import.meta.path.startsWith("/$bunfs/");
  return [process.execPath, compiled ? LAUNCHER_COMMAND : LAUNCHER_FILE];
}

/** The launcher runs outside the workspace (in the private TMPDIR), so Bun never reads the workspace's .env or bunfig.toml. */
function launch(argv: string[], rules: Confinement, env: Record<string, string>, confine: boolean) {
  const { BUN_BE_BUN: _forTheCheck, ...own } = env;
  const payload: LaunchPayload = { argv, cwd: rules.cwd, rules: confine ? rules : null, env };
  return { argv: launcherArgv(), cwd: rules.tmpdir, env: { ...own, [PAYLOAD_VARIABLE]: JSON.stringify(payload) } };
}

/** Landlock's rules enforced by the launcher, which also kills every descendant. */
export const landlockSandbox: Sandbox = { kind: "landlock", command: (argv, rules, env) => launch(argv, rules, env, true) };

/** No confinement on Linux, but still the subreaper: no process outlives its check. */
export const subreaperOnly: Sandbox = { kind: "none", command: (argv, rules, env) => launch(argv, rules, env, false) };

/** Every process below `root`, from /proc: parent links, followed down. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(join("/proc", name, "stat"), "utf8");
    } catch {
      continue; // Gone already.
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (state === "Z") continue; // A zombie is dead; only its parent's wait removes it.
    const list = children.get(Number(ppid)) ?? [];
    list.push(Number(name));
    children.set(Number(ppid), list);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length) for (const child of children.get(queue.shift()!) ?? []) found.push(child), queue.push(child);
  return found;
}

/** Kills every descendant until none is left (a process may fork while the first sweep runs). */
export function killDescendants(root: number): void {
  for (let round = 0; round < 50; round++) {
    const found = descendants(root);
    if (found.length === 0) return;
    for (const pid of found) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
  }
}

export async function runLauncher(payloadText = process.env[PAYLOAD_VARIABLE] ?? ""): Promise<number> {
  let payload: LaunchPayload;
  try {
    payload = JSON.parse(payloadText) as LaunchPayload;
  } catch {
    process.stderr.write(`glassbox: ${LAUNCHER_COMMAND} is started by glassbox itself, with ${PAYLOAD_VARIABLE} set\n`);
    return 2;
  }
  terminateWithParent();
  if (!becomeSubreaper()) {
    process.stderr.write("glassbox: could not become a subreaper; the check was not run\n");
    return 125;
  }
  const stop = () => {
    killDescendants(process.pid);
    process.exit(137);
  };
  process.on("SIGTERM", stop);
  if (payload.rules) {
    try {
      restrictSelf(payload.rules);
    } catch (error) {
      process.stderr.write(`glassbox: Landlock refused the check's rules (${(error as Error).message}); the check was not run\n`);
      return 125;
    }
  }
  let child;
  try {
    child = Bun.spawn(payload.argv, { cwd: payload.cwd, env: payload.env, stdin: "ignore", stdout: "inherit", stderr: "inherit" });
  } catch (error) {
    process.stderr.write(`glassbox: could not start ${payload.argv[0]} (${(error as Error).message})\n`);
    return 127;
  }
  const code = await child.exited;
  killDescendants(process.pid);
  return child.signalCode ? 128 + (SIGNALS[child.signalCode] ?? 0) : code;
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15 };

if (import.meta.main) process.exit(await runLauncher());
