/**
 * Generated trees and what real git says about them: the yardstick of the tree tools' ignore
 * rules. git runs with no global or system config, so a developer's own excludes file cannot
 * change the answer.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempFolder } from "../../helpers/workspace.ts";

/** A tree to generate: path → content (a path ending in "/" is an empty folder). */
export type Tree = Record<string, string>;

export function writeTree(root: string, tree: Tree): void {
  for (const [path, content] of Object.entries(tree)) {
    if (path.endsWith("/")) mkdirSync(join(root, path), { recursive: true });
    else {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
  }
}

export function git(root: string, args: string[], stdin?: string): string {
  const home = tempFolder("git-home");
  const result = Bun.spawnSync(["git", ...args], {
    cwd: root,
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
  // check-ignore exits 1 when nothing is ignored: not a failure.
  if (result.exitCode !== 0 && !(args[0] === "check-ignore" && result.exitCode === 1)) {
    throw new Error(`git ${args.join(" ")} failed: ${result.stderr.toString()}`);
  }
  return result.stdout.toString();
}

/** A fresh git repository holding the tree, `exclude` written to .git/info/exclude. */
export function gitRepository(tree: Tree, exclude = ""): string {
  const root = tempFolder("git-tree");
  git(root, ["init", "-q"]);
  writeTree(root, tree);
  if (exclude) writeFileSync(join(root, ".git", "info", "exclude"), exclude);
  return root;
}

/** The files git shows as tracked or untracked-not-ignored: `git ls-files -co --exclude-standard`. */
export function gitVisibleFiles(root: string): string[] {
  return git(root, ["ls-files", "-co", "--exclude-standard"]).split("\n").filter(Boolean).sort();
}

/** The paths among `paths` that `git check-ignore` calls ignored (a path inside an ignored folder is). */
export function gitIgnored(root: string, paths: string[]): Set<string> {
  return new Set(git(root, ["check-ignore", "--no-index", "--stdin"], paths.join("\n") + "\n").split("\n").filter(Boolean));
}
