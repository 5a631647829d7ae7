import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ignore, { type Ignore } from "ignore";

/**
 * git's ignore rules, as `git check-ignore` applies them (gitignore(5)): every folder's
 * `.gitignore` speaks for the paths below it, a deeper file overrides a shallower one, within one
 * file the last matching line wins, and `.git/info/exclude` speaks last. The `ignore` package
 * parses and matches the lines; this file only decides which file's lines apply.
 */

/** git folds case on the file systems that fold it (core.ignorecase), and only there. */
const IGNORE_CASE = process.platform === "darwin" || process.platform === "win32";

/** One file of rules and the folder its lines are relative to. */
interface Level {
  matcher: Ignore;
  /** The rule text, kept to derive a matcher for a folder a deeper file re-included. */
  text: string;
  /** Workspace-relative POSIX folder the level speaks for, "" for the root, with a trailing "/" otherwise. */
  base: string;
  /** How the workspace root is named from the level's folder ("a/b/" when it lies above the root). */
  prefix: string;
}

function makeLevel(text: string, base: string, prefix: string): Level {
  return { matcher: ignore({ ignorecase: IGNORE_CASE }).add(asBytes(text)), text, base, prefix };
}

/**
 * git matches a pattern against a path byte by byte (`?` or `[!a]` is one byte, so an `é` is
 * two), where `ignore` matches by UTF-16 unit: both are given to it as their UTF-8 bytes, a
 * character each.
 */
function asBytes(text: string): string {
  return /^[\x00-\x7f]*$/.test(text) ? text : Buffer.from(text, "utf8").toString("latin1");
}

/** A folder's name as a gitignore line that matches it and nothing else. */
function literalLine(path: string): string {
  return "/" + path.replace(/[\\*?[\]]/g, "\\$&").replace(/ $/, "\\ ");
}

/** The rules in force in one folder of the walk: its own `.gitignore` and every one above it. */
export class IgnoreRules {
  /** Deepest first: the order in which they are asked. */
  private constructor(private readonly levels: Level[]) {}

  /**
   * The rules in force at the workspace root: `.git/info/exclude` and the `.gitignore` files of
   * the repository's folders above the root, when the root lies inside a git repository; none
   * outside one (each folder's own `.gitignore` is read by `enter`).
   */
  static atRoot(root: string): IgnoreRules {
    const levels: Level[] = [];
    const repo = repositoryAbove(root);
    if (repo) {
      const exclude = join(repo.commonDir, "info", "exclude");
      const fromTop = relative(repo.top, root).split(sep).filter(Boolean);
      const prefixOf = (depth: number) => fromTop.slice(depth).map((name) => `${name}/`).join("");
      levels.unshift(makeLevel(readRules(exclude), "", prefixOf(0)));
      for (let depth = 0; depth < fromTop.length; depth++) {
        const text = readRules(join(repo.top, ...fromTop.slice(0, depth), ".gitignore"));
        if (text) levels.unshift(makeLevel(text, "", prefixOf(depth)));
      }
    }
    return new IgnoreRules(levels);
  }

  /** Whether the entry at the workspace-relative POSIX `path` is ignored, its parent folder not being so. */
  ignores(path: string, isFolder: boolean): boolean {
    return this.verdict(path, isFolder, this.levels.length) === "ignored";
  }

  /**
   * The rules inside `folder` (workspace-relative POSIX, "" for the root, not ignored): these ones plus the
   * folder's own `.gitignore` text, if it has one.
   */
  enter(folder: string, gitignore: string): IgnoreRules {
    // A folder that a shallower file ignores but a deeper one re-includes is entered (git asks
    // the deepest file first); the shallower file's lines must then judge what lies inside on
    // their own, not through the folder it ignored, as `ignore` would.
    const levels = this.levels.map((level, index) =>
      folder && this.verdict(folder, true, index + 1, index) === "ignored"
        ? makeLevel(`${level.text}\n!${literalLine(level.prefix + folder.slice(level.base.length))}/`, level.base, level.prefix)
        : level,
    );
    if (gitignore) levels.unshift(makeLevel(gitignore, folder ? `${folder}/` : "", ""));
    return new IgnoreRules(levels);
  }

  /** The first level of `levels[from, to)` with a verdict on the path decides, as in git. */
  private verdict(path: string, isFolder: boolean, to: number, from = 0): "ignored" | "kept" | "silent" {
    for (let index = from; index < to; index++) {
      const level = this.levels[index]!;
      const local = level.prefix + path.slice(level.base.length) + (isFolder ? "/" : "");
      const { ignored, unignored } = level.matcher.test(asBytes(local));
      if (ignored) return "ignored";
      if (unignored) return "kept";
    }
    return "silent";
  }
}

/** A `.gitignore`'s text, or "" when there is none (or it cannot be read, as git treats it). */
export function readRules(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** The repository the folder lies in: its top folder and the git folder holding `info/exclude`. */
function repositoryAbove(folder: string): { top: string; commonDir: string } | null {
  for (let current = folder; ; current = dirname(current)) {
    const dotGit = join(current, ".git");
    if (existsSync(dotGit)) return { top: current, commonDir: gitCommonDir(dotGit) };
    if (dirname(current) === current) return null;
  }
}

/** `.git` is a folder, or in a linked worktree a file `gitdir: …` whose `commondir` leads to the shared one. */
function gitCommonDir(dotGit: string): string {
  if (statSync(dotGit).isDirectory()) return dotGit;
  const gitDir = resolve(dirname(dotGit), /^gitdir: (.*)$/m.exec(readRules(dotGit))?.[1]?.trim() ?? ".git");
  const common = readRules(join(gitDir, "commondir")).trim();
  return common ? resolve(gitDir, common) : gitDir;
}
