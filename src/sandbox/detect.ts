import { existsSync } from "node:fs";
import { bwrapProblem, bwrapSandbox, findBwrap, probeBwrapAhead } from "./bwrap.ts";
import { landlockAbi } from "./landlock.ts";
import { landlockSandbox, subreaperOnly } from "./launcher.ts";
import { SANDBOX_EXEC, seatbeltSandbox } from "./seatbelt.ts";
import type { Sandbox, SandboxInfo, SandboxKind, SandboxMode } from "./sandbox.ts";

/** Unconfined and without a launcher: the check is spawned as it is (its process group is still killed). */
export const DIRECT: Sandbox = { kind: "none", command: (argv, rules, env) => ({ argv, cwd: rules.cwd, env }) };

/**
 * Which kinds are tried, in order, per platform. `GLASSBOX_SANDBOX_KINDS` (comma-separated) narrows
 * it, e.g. to force the Landlock fallback or to prove what `require` does with none available.
 */
export const KINDS_TRIED: Partial<Record<NodeJS.Platform, SandboxKind[]>> = { linux: ["bwrap", "landlock"], darwin: ["seatbelt"] };

/** How to get each kind, for the message when none is available. */
const HOW_TO_GET: Record<string, string> = {
  bwrap: "install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap) and allow unprivileged user namespaces",
  landlock: "use a kernel with Landlock (5.13 or later, lsm=landlock)",
  seatbelt: "macOS ships /usr/bin/sandbox-exec; it is missing on this machine",
};

/** What runs a check when nothing confines it: on Linux the launcher still reaps every descendant. */
export const UNCONFINED: Sandbox = process.platform === "linux" ? subreaperOnly : DIRECT;

export interface SandboxChoice {
  sandbox: Sandbox;
  info: SandboxInfo;
  /** Set when nothing could confine the checks: what was missing and how to get it. */
  missing: string | null;
}

export interface DetectOptions {
  mode: SandboxMode;
  /** Whether any configured check asks for the network. */
  network: boolean;
  platform?: NodeJS.Platform;
  env?: Record<string, string | undefined>;
  /** Where bwrap is looked for when it is not on PATH. */
  fixedBwrap?: string[];
  abi?: () => number;
  /** Whether a fixed path exists (sandbox-exec on macOS). */
  exists?: (path: string) => boolean;
}

export function chooseSandbox(options: DetectOptions): SandboxChoice {
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  const unconfined = platform === "linux" ? subreaperOnly : DIRECT;
  const none = (reason: string, missing: string | null): SandboxChoice => ({
    sandbox: unconfined,
    info: { kind: "none", network: true, secrets_hidden: false, reason },
    missing,
  });
  if (options.mode === "off") return none("sandbox is off in the config", null);
  const tried = KINDS_TRIED[platform] ?? [];
  const problems: string[] = [];
  for (const kind of tried) {
    const found = leftOut(kind, env) ? { problem: "left out by GLASSBOX_SANDBOX_KINDS" } : probe(kind, env, options);
    if ("problem" in found) {
      problems.push(`${kind}: ${found.problem}`);
      continue;
    }
    const reason = [found.reason, ...problems].join("; ");
    return { sandbox: found.sandbox, info: { kind, network: options.network, secrets_hidden: true, reason }, missing: null };
  }
  if (tried.length === 0) return none(`glassbox has no sandbox for ${platform} yet`, `glassbox has no sandbox for ${platform} yet`);
  const how = tried.map((kind) => HOW_TO_GET[kind]).join(", or ");
  return none(problems.join("; "), `${problems.join("; ")}; to fix: ${how}`);
}

function leftOut(kind: SandboxKind, env: Record<string, string | undefined>): boolean {
  const narrowed = env.GLASSBOX_SANDBOX_KINDS?.split(",").map((name) => name.trim());
  return narrowed !== undefined && !narrowed.includes(kind);
}

let probingAhead: Promise<void> | null = null;

/**
 * Starts the slow part of chooseSandbox() in the background: bwrap's test run, where bwrap will
 * be tried. The TUI starts it before loading its modules and awaits it before opening the
 * session, so the test run overlaps the start instead of adding to it. Once per process.
 */
export function probeSandboxAhead(env: Record<string, string | undefined> = process.env, platform: NodeJS.Platform = process.platform): Promise<void> {
  return (probingAhead ??= (async () => {
    if (!(KINDS_TRIED[platform] ?? []).includes("bwrap") || leftOut("bwrap", env)) return;
    const bwrap = findBwrap(env.PATH);
    if (bwrap) await probeBwrapAhead(bwrap);
  })());
}

function probe(kind: SandboxKind, env: Record<string, string | undefined>, options: DetectOptions): { sandbox: Sandbox; reason: string } | { problem: string } {
  switch (kind) {
    case "bwrap": {
      const bwrap = findBwrap(env.PATH, options.fixedBwrap);
      if (!bwrap) return { problem: "bwrap not found on PATH or in /usr/bin" };
      const problem = bwrapProblem(bwrap);
      return problem ? { problem: `${bwrap} cannot make namespaces here (${problem})` } : { sandbox: bwrapSandbox(bwrap), reason: `bwrap at ${bwrap}` };
    }
    case "landlock": {
      const abi = (options.abi ?? landlockAbi)();
      return abi > 0 ? { sandbox: landlockSandbox, reason: `Landlock ABI ${abi} with a subreaper` } : { problem: "the kernel has no Landlock" };
    }
    case "seatbelt":
      return (options.exists ?? existsSync)(SANDBOX_EXEC) ? { sandbox: seatbeltSandbox(), reason: SANDBOX_EXEC } : { problem: `${SANDBOX_EXEC} is missing` };
    default:
      return { problem: "not a kind that confines" };
  }
}
