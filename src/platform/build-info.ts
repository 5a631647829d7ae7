import { spawnSync } from "node:child_process";

/**
 * What ran, for bug reports: `glassbox VERSION (COMMIT, TARGET)`. A compiled binary has both
 * baked in by scripts/build.ts (`define`); from source, the commit is asked of git and the
 * target is the machine's own.
 */
declare const GLASSBOX_BUILD: { commit: string; target: string } | undefined;

export interface BuildInfo {
  commit: string;
  target: string;
}

/** The release name of a platform and architecture: `darwin-arm64`, `linux-x64`, `windows-x64`. */
export function targetName(platform: string, arch: string): string {
  return `${platform === "win32" ? "windows" : platform}-${arch}`;
}

/** The commit a folder is at: the short hash, `-dirty` when tracked files changed; `unknown` without git. */
export function commitOf(folder: string): string {
  const git = (...args: string[]) => spawnSync("git", ["-C", folder, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const head = git("rev-parse", "--short=7", "HEAD");
  if (head.status !== 0 || !head.stdout.trim()) return "unknown";
  const dirty = git("diff", "--quiet", "HEAD").status === 1;
  return `${head.stdout.trim()}${dirty ? "-dirty" : ""}`;
}

export function buildInfo(): BuildInfo {
  if (typeof GLASSBOX_BUILD !== "undefined") return GLASSBOX_BUILD;
  return { commit: commitOf(import.meta.dir), target: targetName(process.platform, process.arch) };
}

export function versionLine(version: string, info: BuildInfo): string {
  return `glassbox ${version} (${info.commit}, ${info.target})`;
}
