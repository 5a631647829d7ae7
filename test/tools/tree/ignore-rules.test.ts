import { describe, expect, test } from "bun:test";
import { workspaceFiles } from "../../../src/tools/tree/walk.ts";
import { tempFolder } from "../../helpers/workspace.ts";
import { gitIgnored, gitRepository, gitVisibleFiles, writeTree, type Tree } from "./git-tree.ts";

interface Case {
  name: string;
  tree: Tree;
  /** .git/info/exclude */
  exclude?: string;
}

/** Each case's tree is generated, and the files glassbox sees must be exactly those git sees. */
const CASES: Case[] = [
  {
    name: "a name pattern matches at any depth",
    tree: { ".gitignore": "*.log\n", "a.log": "", "src/b.log": "", "src/deep/c.log": "", "src/c.ts": "", "log.txt": "" },
  },
  {
    name: "a folder-only pattern leaves a file of that name alone",
    tree: { ".gitignore": "build/\n", "build/x.js": "", "src/build": "", "src/build.ts": "", "pkg/build/y.js": "" },
  },
  {
    name: "a leading slash anchors to the .gitignore's folder",
    tree: { ".gitignore": "/dist\n", "dist/a.js": "", "sub/dist/b.js": "", "sub/dist.md": "" },
  },
  {
    name: "a slash inside anchors too, and * stays within one folder",
    tree: { ".gitignore": "docs/*.md\n", "docs/a.md": "", "docs/sub/b.md": "", "other/docs/a.md": "", "docs/c.txt": "" },
  },
  {
    name: "** matches any number of folders",
    tree: { ".gitignore": "**/gen/**\na/**/b\n", "gen/x.ts": "", "src/gen/y.ts": "", "src/gen.ts": "", "a/b": "", "a/x/y/b": "", "a/x/c": "" },
  },
  {
    name: "a negation re-includes a file",
    tree: { ".gitignore": "*.txt\n!keep.txt\n", "a.txt": "", "keep.txt": "", "sub/keep.txt": "", "sub/drop.txt": "" },
  },
  {
    name: "a negation cannot re-include a file inside an ignored folder",
    tree: { ".gitignore": "out/\n!out/keep.txt\n", "out/keep.txt": "", "out/drop.txt": "", "src/a.ts": "" },
  },
  {
    name: "ignoring a folder's contents, not the folder, lets a negation through",
    tree: { ".gitignore": "out/*\n!out/keep.txt\n", "out/keep.txt": "", "out/drop.txt": "", "out/deep/x.txt": "" },
  },
  {
    name: "the last matching line wins",
    tree: { ".gitignore": "!a.tmp\n*.tmp\n!b.tmp\n", "a.tmp": "", "b.tmp": "", "c.tmp": "" },
  },
  {
    name: "a nested .gitignore overrides the root's for its folder",
    tree: { ".gitignore": "*.gen\n", "a.gen": "", "sub/.gitignore": "!special.gen\n", "sub/special.gen": "", "sub/other.gen": "", "special.gen": "" },
  },
  {
    name: "a nested .gitignore re-includes a folder the root ignores",
    tree: {
      ".gitignore": "build/\n*.log\n",
      "build/y.js": "",
      "sub/.gitignore": "!build/\n",
      "sub/build/x.js": "",
      "sub/build/x.log": "",
      "sub/build/deeper/z.js": "",
      "sub/other/build/w.js": "",
    },
  },
  {
    name: "a nested .gitignore's anchored line speaks for its own folder only",
    tree: { "sub/.gitignore": "/local\nnested/*.tmp\n", "sub/local": "", "sub/x/local": "", "local": "", "sub/nested/a.tmp": "", "sub/x/nested/a.tmp": "" },
  },
  {
    name: "a nested .gitignore's lines reach below its folder",
    tree: { "a/.gitignore": "*.cache\n", "a/b/c/x.cache": "", "x.cache": "", "a/b/keep": "" },
  },
  {
    name: ".git/info/exclude is honoured",
    tree: { "notes/mine.md": "", "a.tmp": "", "src/a.ts": "" },
    exclude: "notes/\n*.tmp\n",
  },
  {
    name: "a .gitignore overrides .git/info/exclude",
    tree: { ".gitignore": "!keep.tmp\n", "keep.tmp": "", "drop.tmp": "" },
    exclude: "*.tmp\n",
  },
  {
    name: "comments, blank lines, escapes and trailing spaces",
    tree: { ".gitignore": "# a comment\n\n\\#hash\n\\!bang\ntrail   \nspaced\\ \n", "#hash": "", "!bang": "", "trail": "", "spaced ": "", "# a comment": "", "kept": "" },
  },
  {
    name: "character classes and ?",
    tree: { ".gitignore": "[ab].c\n?.md\n[!x]y.z\n", "a.c": "", "b.c": "", "c.c": "", "x.md": "", "xx.md": "", "ay.z": "", "xy.z": "" },
  },
  {
    name: "dotfolders are shown unless ignored",
    tree: { ".gitignore": ".cache/\n", ".github/workflows/ci.yml": "", ".cache/x": "", ".editorconfig": "" },
  },
  {
    name: "ignore everything, then allow folders and one kind of file",
    tree: { ".gitignore": "*\n!*/\n!*.ts\n!.gitignore\n", "a.ts": "", "a.js": "", "src/b.ts": "", "src/b.md": "", "src/deep/c.ts": "" },
  },
  {
    name: "patterns are case-sensitive where the file system is",
    tree: { ".gitignore": "README\n*.LOG\n", "readme": "", "README": "", "a.log": "", "b.LOG": "" },
  },
  {
    name: "a .gitignore may ignore itself",
    tree: { ".gitignore": ".gitignore\nx\n", "x": "", "y": "" },
  },
  {
    name: "an ignored folder's own .gitignore is never read",
    tree: { ".gitignore": "vendor/\n", "vendor/.gitignore": "!*\n", "vendor/a.js": "", "src/a.ts": "" },
  },
  {
    name: "a folder pattern with a trailing ** and a middle slash",
    tree: { ".gitignore": "logs/**\n!logs/keep/\n", "logs/a.txt": "", "logs/keep/b.txt": "", "logs/keep/c/d.txt": "" },
  },
];

function allPaths(tree: Tree): string[] {
  const paths = new Set<string>();
  for (const path of Object.keys(tree)) {
    const parts = path.replace(/\/$/, "").split("/");
    for (let i = 1; i <= parts.length; i++) paths.add(parts.slice(0, i).join("/"));
  }
  return [...paths].sort();
}

describe("the files the tree tools see are the files git sees", () => {
  for (const c of CASES) {
    test(c.name, () => {
      const root = gitRepository(c.tree, c.exclude);
      const git = gitVisibleFiles(root);
      expect(workspaceFiles(root)).toEqual(git);
      // And file by file, as `git check-ignore` judges each one.
      const files = allPaths(c.tree).filter((path) => c.tree[path] !== undefined);
      const ignored = gitIgnored(root, files);
      expect(files.filter((path) => !ignored.has(path))).toEqual(git);
    });
  }
});

describe("outside a git repository the same .gitignore rules apply", () => {
  for (const c of CASES.filter((c) => !c.exclude)) {
    test(c.name, () => {
      const plain = tempFolder("plain-tree");
      writeTree(plain, c.tree);
      expect(workspaceFiles(plain)).toEqual(gitVisibleFiles(gitRepository(c.tree)));
    });
  }
});

describe("a workspace inside a repository", () => {
  test("the .gitignore files and .git/info/exclude above the workspace root apply", () => {
    const tree = {
      ".gitignore": "*.log\n",
      "pkg/.gitignore": "/sub/only-here.txt\n",
      "pkg/sub/a.ts": "",
      "pkg/sub/a.log": "",
      "pkg/sub/only-here.txt": "",
      "pkg/sub/x.tmp": "",
      "pkg/sub/inner/only-here.txt": "",
    };
    const root = gitRepository(tree, "*.tmp\n");
    const seen = gitVisibleFiles(root).filter((path) => path.startsWith("pkg/sub/")).map((path) => path.slice("pkg/sub/".length));
    expect(seen).toEqual(["a.ts", "inner/only-here.txt"]);
    expect(workspaceFiles(`${root}/pkg/sub`)).toEqual(seen);
  });
});
