import { existsSync } from "node:fs";
import type { Confinement } from "./rules.ts";
import { overlayPrefix, processIds } from "./overlay.ts";
import type { Sandbox } from "./sandbox.ts";

/**
 * bubblewrap: a new session, a PID namespace (when its first process ends, the kernel kills every
 * process left in it), no network namespace unless the check asks, `/` read-only, the writable
 * folders bound writable, `.git` and `.glassbox` read-only again, secrets covered by empty mounts.
 */
export function bwrapArgs(bwrap: string, argv: string[], rules: Confinement, ids: { uid: number; gid: number } = processIds()): string[] {
  const { access } = rules;
  const overlay = access.kind === "overlay" ? access : null;
  // With an overlay, bwrap starts inside the namespace that mounted it, as its root: a user namespace of its own gives the command the person's ids back.
  const args = overlay ? [...overlayPrefix(overlay, rules.workspace), bwrap, "--unshare-user", "--uid", `${ids.uid}`, "--gid", `${ids.gid}`] : [bwrap];
  args.push("--new-session", "--die-with-parent", "--unshare-pid");
  if (!rules.network) args.push("--unshare-net");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  // With an overlay the workspace is its merged view: every write lands in the upper folder. A
  // folder is bound before the folders inside it, so a writable one that holds the workspace
  // (~/.cache) cannot cover the workspace's own mount.
  for (const path of [...rules.writable].sort((a, b) => a.length - b.length)) args.push("--bind", overlay && path === rules.workspace ? overlay.merged : path, path);
  for (const path of rules.readOnly) args.push("--ro-bind", path, path);
  for (const { path, folder } of rules.hidden) {
    if (folder) args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  args.push("--chdir", rules.cwd, "--", ...argv);
  return args;
}

export function bwrapSandbox(bwrap: string): Sandbox {
  return { kind: "bwrap", command: (argv, rules, env) => ({ argv: bwrapArgs(bwrap, argv, rules), cwd: rules.cwd, env }) };
}

/** The system's bwrap: on PATH, else at /usr/bin/bwrap. Never bundled. */
export function findBwrap(path: string | undefined, fixed: string[] = ["/usr/bin/bwrap"]): string | null {
  return Bun.which("bwrap", { PATH: path ?? "" }) ?? fixed.find((candidate) => existsSync(candidate)) ?? null;
}

const probed = new Map<string, string | null>();

/** Whether bwrap can really make its namespaces here (an AppArmor rule or a container may forbid it); null when it can. Asked once per process. */
export function bwrapProblem(bwrap: string): string | null {
  if (!probed.has(bwrap)) {
    const probe = Bun.spawnSync([bwrap, ...PROBE_ARGS], PROBE_STDIO);
    probed.set(bwrap, probeOutcome(probe.exitCode, probe.stderr.toString()));
  }
  return probed.get(bwrap)!;
}

/**
 * The same test run in the background, so that bwrapProblem() later finds its answer waiting
 * instead of waiting for bwrap (5 ms on a quiet machine, 20 and more on a busy one). A run that
 * cannot even start is left to bwrapProblem(), which meets the same error.
 */
export async function probeBwrapAhead(bwrap: string): Promise<void> {
  if (probed.has(bwrap)) return;
  let probe: Bun.Subprocess<"ignore", "ignore", "pipe">;
  try {
    probe = Bun.spawn([bwrap, ...PROBE_ARGS], PROBE_STDIO);
  } catch {
    return;
  }
  const [exitCode, stderr] = await Promise.all([probe.exited, new Response(probe.stderr).text()]);
  if (!probed.has(bwrap)) probed.set(bwrap, probeOutcome(exitCode, stderr));
}

const PROBE_ARGS = ["--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "true"];
const PROBE_STDIO = { stdin: "ignore", stdout: "ignore", stderr: "pipe" } as const;

function probeOutcome(exitCode: number | null, stderr: string): string | null {
  if (exitCode === 0) return null;
  return stderr.trim().split("\n").at(-1) || `exit ${exitCode}`;
}
