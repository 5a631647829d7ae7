import { readdirSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { Refusal } from "../../protocol/refusal.ts";
import { isOffLimitsName, Workspace, type ResolvedPath } from "../../files/workspace.ts";
import { IgnoreRules, readRules } from "./ignore-rules.ts";

/** Never shown, even where no `.gitignore` names it: a dependency tree is no reading for a model. */
const NEVER_SHOWN = new Set(["node_modules"]);

export interface TreeEntry {
  /** Workspace-relative POSIX path: what the model sees. */
  path: string;
  /** The entry's own name in its folder (a link's name, not its target's). */
  name: string;
  /** How far below the walk's start folder: 0 for its own entries. */
  depth: number;
  folder: boolean;
  /** Where the file really is, links resolved: what a reader opens. Never shown to the model. */
  real: string;
}

/** A folder the tree tools may look into, with the ignore rules in force there. */
export interface TreeStart {
  folder: ResolvedPath;
  /** Workspace-relative POSIX path of the folder, "" for the root. */
  path: string;
  /** The rules that judged the folder itself; its own `.gitignore` is read by the walk. */
  rules: IgnoreRules;
}

/**
 * The `directory` argument of a tree tool (default: the root), resolved, with the rules of every
 * `.gitignore` above it read. A folder git ignores, or one inside it, is refused: the tree tools
 * never look into one.
 */
export function openTree(workspace: Workspace, directory: string | undefined): TreeStart {
  const folder = workspace.resolve(directory ?? ".", "directory");
  if (!folder.stats?.isDirectory()) throw new Refusal(`Argument \`directory\`: \`${folder.relative}\` is not a folder in the workspace.`);
  const path = folder.relative === "." ? "" : folder.relative.split(/[\\/]/).join("/");
  let rules = IgnoreRules.atRoot(workspace.root);
  let above = "";
  for (const name of path ? path.split("/") : []) {
    rules = rules.enter(above, readRules(join(workspace.root, above, ".gitignore")));
    above = above ? `${above}/${name}` : name;
    if (NEVER_SHOWN.has(name) || rules.ignores(above, true)) {
      throw new Refusal(`Argument \`directory\`: \`${above}\` is ignored (.gitignore or node_modules), and the tree tools never look inside it; read_file still reads a file there by its path.`);
    }
  }
  return { folder, path, rules };
}

/**
 * Every entry below the start folder that git would show, depth first, names sorted: ignored
 * entries are left out and ignored folders never entered, so a walk costs what the tracked tree
 * costs. Off-limits names and node_modules never appear. A link appears only when its real
 * location is inside the workspace and not off limits; a linked folder is not entered, so a link
 * loop cannot trap the walk.
 */
export function* treeEntries(workspace: Workspace, start: TreeStart): Generator<TreeEntry> {
  yield* entriesIn(workspace, start.folder.real, start.path, start.rules, 0);
}

function* entriesIn(workspace: Workspace, real: string, path: string, outer: IgnoreRules, depth: number): Generator<TreeEntry> {
  let dirents: Dirent[];
  try {
    dirents = readdirSync(real, { withFileTypes: true });
  } catch {
    return;
  }
  const rules = outer.enter(path, dirents.some((dirent) => dirent.name === ".gitignore") ? readRules(join(real, ".gitignore")) : "");
  dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const dirent of dirents) {
    const { name } = dirent;
    if (isOffLimitsName(name) || NEVER_SHOWN.has(name)) continue;
    const entryPath = path ? `${path}/${name}` : name;
    const location = join(real, name);
    if (dirent.isSymbolicLink()) {
      // git judges a link as a file, whatever it leads to.
      if (rules.ignores(entryPath, false)) continue;
      const found = workspace.admits(location);
      if (found?.stats?.isFile() || found?.stats?.isDirectory()) yield { path: entryPath, name, depth, folder: found.stats.isDirectory(), real: found.real };
    } else if (dirent.isDirectory()) {
      if (rules.ignores(entryPath, true)) continue;
      yield { path: entryPath, name, depth, folder: true, real: location };
      yield* entriesIn(workspace, location, entryPath, rules, depth + 1);
    } else if (dirent.isFile()) {
      // A FIFO, socket or device is never shown: opening one could hang a read.
      if (!rules.ignores(entryPath, false)) yield { path: entryPath, name, depth, folder: false, real: location };
    }
  }
}

/**
 * The sorted workspace-relative POSIX paths of every file the tree tools see, in the whole
 * workspace or in one folder of it (a Refusal when that folder is not one they look into).
 * For `@path` completion and the changed-files look after a command.
 */
export function workspaceFiles(root: string, directory?: string): string[] {
  const workspace = new Workspace(root);
  const files: string[] = [];
  for (const entry of treeEntries(workspace, openTree(workspace, directory))) if (!entry.folder) files.push(entry.path);
  return files.sort();
}
