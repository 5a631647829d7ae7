/**
 * git matches ignore patterns byte by byte: `?` is one byte, and an `é` is two in UTF-8 (found by
 * walk-property.test.ts). The tree tools must agree, or a file git shows is hidden from them.
 */
import { describe, expect, test } from "bun:test";
import { workspaceFiles } from "../../../src/tools/tree/walk.ts";
import { gitRepository, type Tree } from "./git-tree.ts";
import { git } from "./git-tree.ts";

const gitFiles = (root: string) => git(root, ["ls-files", "-z", "-co", "--exclude-standard"]).split("\0").filter(Boolean).sort();

const CASES: Array<{ name: string; tree: Tree; shown: string[] }> = [
  { name: "`?` does not match a two-byte character", tree: { ".gitignore": "?.txt\n", "é.txt": "", "a.txt": "" }, shown: [".gitignore", "é.txt"] },
  { name: "`??` does", tree: { ".gitignore": "??.txt\n", "é.txt": "", "ab.txt": "", "a.txt": "" }, shown: [".gitignore", "a.txt"] },
  { name: "a negated class is one byte too", tree: { ".gitignore": "[!a].txt\n", "é.txt": "", "b.txt": "", "a.txt": "" }, shown: [".gitignore", "a.txt", "é.txt"] },
  { name: "a literal non-ASCII name still matches itself", tree: { ".gitignore": "ü/\n*é*\n", "ü/x": "", "café.md": "", "cafe.md": "" }, shown: [".gitignore", "cafe.md"] },
];

describe("ignore patterns and names that are not ASCII", () => {
  for (const c of CASES) {
    test(c.name, () => {
      const root = gitRepository(c.tree);
      expect(gitFiles(root)).toEqual(c.shown);
      expect(workspaceFiles(root)).toEqual(c.shown);
    });
  }
});
