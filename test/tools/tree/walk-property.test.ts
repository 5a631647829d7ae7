/**
 * Property of the tree walk (workspaceFiles, what list_files, find_files and search_text read):
 * on any generated tree of folders, files and `.gitignore` files at several levels (negations
 * included) and `.git/info/exclude`, it lists exactly what `git ls-files -co --exclude-standard`
 * lists, less the names no tool may touch. The hand-picked cases are in ignore-rules.test.ts.
 */
import fc from "fast-check";
import { describe, expect, test } from "bun:test";
import { workspaceFiles } from "../../../src/tools/tree/walk.ts";
import { isOffLimitsName } from "../../../src/files/workspace.ts";
import { git, gitRepository, type Tree } from "./git-tree.ts";
import { settings } from "../../helpers/property.ts";

/** Names that patterns below speak of, the off-limits ones among them. */
const FOLDERS = ["a", "b", "build", "src", "deep", "node_modules", ".glassbox", ".cache", "x y", "ü"];
const FILES = ["a", "b", "c.txt", "d.log", "keep.log", "build", "#h", "!b", "x y", "é.txt", ".env", ".env.local", "z.tmp"];

/** Lines a `.gitignore` may hold: globs, anchors, folder-only patterns, negations, escapes, comments. */
const PATTERNS = [
  "*.log", "!keep.log", "build/", "build", "/a", "a/", "a/**/c.txt", "**/b", "**/deep/**", "*", "!*/", "!*.txt", "!.gitignore",
  "src/*", "!src/a", "b/*", "!b/c.txt", "\\#h", "\\!b", "d*", "[ab]", "[!a]", "?", "?.txt", "x y", "x\\ y", "*.tmp", "!z.tmp",
  "deep/", "!deep/", ".cache/", "!a/", "/*", "!/src", "# a comment", "", "c.txt ", "**", "a/b", "!a/b/", "src/**/d.log",
  // git matches bytes: `?` is one byte of an `é`, `??` both.
  "??.txt", "[!a].txt", "é*", "*é*", "!ü/", "ü",
];

const segment = fc.constantFrom(...FOLDERS);
const file = fc.constantFrom(...FILES);
const filePath = fc.tuple(fc.array(segment, { maxLength: 3 }), file).map(([folders, name]) => [...folders, name].join("/"));
const rules = fc.array(fc.constantFrom(...PATTERNS), { minLength: 1, maxLength: 5 }).map((lines) => lines.join("\n") + "\n");

/** A tree: files in folders, and `.gitignore` files placed in some of those folders (the root included). */
const treeArbitrary = fc
  .tuple(fc.array(filePath, { minLength: 1, maxLength: 14 }), fc.array(fc.tuple(fc.nat(), rules), { maxLength: 4 }), fc.oneof(fc.constant(""), rules))
  .map(([paths, ignores, exclude]) => {
    const tree: Tree = {};
    const isFile = new Set<string>();
    const isFolder = new Set<string>([""]);
    for (const path of paths) {
      const parts = path.split("/");
      const folders = parts.slice(0, -1).map((_, index) => parts.slice(0, index + 1).join("/"));
      // A name is a file or a folder, never both.
      if (isFolder.has(path) || folders.some((folder) => isFile.has(folder))) continue;
      tree[path] = "";
      isFile.add(path);
      for (const folder of folders) isFolder.add(folder);
    }
    const folders = [...isFolder].sort();
    for (const [at, text] of ignores) {
      const folder = folders[at % folders.length]!;
      const path = folder ? `${folder}/.gitignore` : ".gitignore";
      if (!isFile.has(path)) tree[path] = text;
    }
    return { tree, exclude, folders };
  });

/** What git shows, names given as they are (-z: no quoting of spaces or é). */
function gitFiles(root: string): string[] {
  return git(root, ["ls-files", "-z", "-co", "--exclude-standard"]).split("\0").filter(Boolean).sort();
}

/** Off limits to every tool wherever it stands in a path, and node_modules never shown. */
const toolsMayShow = (path: string) => path.split("/").every((name) => !isOffLimitsName(name) && name !== "node_modules");

describe("the tree walk on generated trees", () => {
  test("lists what git lists, less the names no tool may touch; in a folder, that folder's part of it", () => {
    fc.assert(
      fc.property(treeArbitrary, fc.nat(), ({ tree, exclude }, pick) => {
        const root = gitRepository(tree, exclude);
        const expected = gitFiles(root).filter(toolsMayShow);
        const seen = workspaceFiles(root);
        expect(seen).toEqual(expected);
        // A folder the walk shows something in, walked on its own: the same files, named from the root.
        const shown = [...new Set(seen.flatMap((path) => path.split("/").slice(0, -1).map((_, index, parts) => parts.slice(0, index + 1).join("/"))))];
        if (shown.length) {
          const folder = shown[pick % shown.length]!;
          expect(workspaceFiles(root, folder)).toEqual(expected.filter((path) => path.startsWith(`${folder}/`)));
        }
      }),
      settings(40_601, 40, 20_000),
    );
  }, 30_000);
});
