import { beforeAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { workspaceFiles } from "../../../src/tools/tree/walk.ts";
import { listFiles } from "../../../src/tools/list_files.ts";
import { Refusal } from "../../../src/protocol/refusal.ts";
import { tempFolder } from "../../helpers/workspace.ts";
import { runTool } from "../harness.ts";
import { gitRepository, gitVisibleFiles, writeTree } from "./git-tree.ts";

const TREE = {
  ".gitignore": "dist/\n!node_modules/\n",
  ".github/workflows/ci.yml": "",
  ".env": "",
  "src/.env.local": "",
  ".glassbox/runs/r.jsonl": "",
  "pkg/.glassbox/x": "",
  "pkg/.git/config": "",
  "pkg/index.ts": "",
  "node_modules/dep/index.js": "",
  "pkg/node_modules/dep/index.js": "",
  "dist/bundle.js": "",
  "src/a.ts": "",
  "src/b/c.ts": "",
  "a.ts": "",
  "a-b.ts": "",
};

describe("workspaceFiles", () => {
  let root: string;
  let outside: string;
  beforeAll(() => {
    root = tempFolder("walk");
    outside = tempFolder("walk-outside");
    writeTree(root, TREE);
    writeTree(outside, { "secret.txt": "" });
    symlinkSync("src/a.ts", join(root, "link-to-a.ts"));
    symlinkSync(join(outside, "secret.txt"), join(root, "link-outside.txt"));
    symlinkSync("src", join(root, "src-link"));
  });

  test("every file git would show, sorted, as POSIX paths from the root; never an off-limits name or node_modules", () => {
    expect(workspaceFiles(root)).toEqual([".github/workflows/ci.yml", ".gitignore", "a-b.ts", "a.ts", "link-to-a.ts", "pkg/index.ts", "src/a.ts", "src/b/c.ts"]);
  });

  test("in one folder: its files, still named from the workspace root", () => {
    expect(workspaceFiles(root, "src")).toEqual(["src/a.ts", "src/b/c.ts"]);
    expect(workspaceFiles(root, "src-link")).toEqual(["src/a.ts", "src/b/c.ts"]);
  });

  test("a folder git ignores, or node_modules, is refused: the tree tools never look inside", () => {
    expect(() => workspaceFiles(root, "dist")).toThrow(Refusal);
    expect(() => workspaceFiles(root, "node_modules/dep")).toThrow(/`node_modules` is ignored/);
  });

  test("in a git repository: what `git ls-files -co --exclude-standard` lists, less the names no tool may touch", () => {
    const repo = gitRepository(TREE);
    const offLimits = /(^|\/)(\.env[^/]*|\.glassbox)(\/|$)|node_modules/;
    expect(workspaceFiles(repo)).toEqual(gitVisibleFiles(repo).filter((path) => !offLimits.test(path) && !path.startsWith("pkg/.git/")));
  });
});

test("list_files shows no ignored folder, not even as a line of its own", async () => {
  const root = tempFolder("walk-list");
  writeTree(root, { ".gitignore": "out/\n*.tmp\n", "out/a.js": "", "x.tmp": "", "keep.ts": "", ".github/ci.yml": "" });
  expect(await runTool(listFiles, {}, root)).toBe(".:\n.github/\n  ci.yml\n.gitignore\nkeep.ts");
});
