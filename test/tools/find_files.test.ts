import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findFiles } from "../../src/tools/find_files.ts";
import { makeWorkspace, type TestWorkspace } from "../helpers/workspace.ts";
import { expectRefused, gate, runTool } from "./harness.ts";

describe("find_files", () => {
  let ws: TestWorkspace;
  beforeAll(() => {
    ws = makeWorkspace();
    const r = (name: string) => join(ws.root, name);
    writeFileSync(r(".gitignore"), "build/\n");
    for (const path of ["pkg/src/a.test.ts", "pkg/src/deep/b.test.ts", "pkg/index.ts", "build/c.test.ts", ".github/workflows/ci.yml", "node_modules/x/d.test.ts", "pkg/.env.test.ts"]) {
      mkdirSync(join(ws.root, path, ".."), { recursive: true });
      writeFileSync(r(path), "");
    }
  });

  test("is offered with the default tools", async () => {
    expect((await gate(ws.root).call("find_files", { pattern: "*.yml" })).content).toBe(".github/workflows/ci.yml");
  });

  test("a glob without / matches names at any depth, sorted; ignored folders, node_modules and off-limits names never", async () => {
    expect(await runTool(findFiles, { pattern: "*.test.ts" }, ws.root)).toBe("pkg/src/a.test.ts\npkg/src/deep/b.test.ts\ntest/version.test.ts");
  });

  test("a glob with / matches the path from the root, also under a directory", async () => {
    expect(await runTool(findFiles, { pattern: "pkg/src/**/*.ts" }, ws.root)).toBe("pkg/src/a.test.ts\npkg/src/deep/b.test.ts");
    expect(await runTool(findFiles, { pattern: "pkg/*.ts", directory: "pkg" }, ws.root)).toBe("pkg/index.ts");
    expect(await runTool(findFiles, { pattern: "src/*.ts", directory: "pkg" }, ws.root)).toBe('No file matches "src/*.ts".');
  });

  test("a trailing / means everything below the folder", async () => {
    expect(await runTool(findFiles, { pattern: "pkg/src/" }, ws.root)).toBe("pkg/src/a.test.ts\npkg/src/deep/b.test.ts");
  });

  test("the list is capped, and says how many more there were", async () => {
    const many = join(ws.root, "many");
    mkdirSync(many);
    for (let i = 0; i < 230; i++) writeFileSync(join(many, `f${String(i).padStart(3, "0")}.txt`), "");
    const lines = (await runTool(findFiles, { pattern: "many/*.txt" }, ws.root)).split("\n");
    expect(lines).toHaveLength(201);
    expect(lines[199]).toBe("many/f199.txt");
    expect(lines[200]).toBe("[230 files in all, 30 not shown: narrow the pattern or give a subfolder]");
  });

  test("an ignored folder given as directory is refused", async () => {
    expectRefused(await gate(ws.root).call("find_files", { pattern: "*", directory: "build" }), ws, "`directory`", /ignored/);
  });

  test("an empty pattern is refused, naming it", async () => {
    expectRefused(await gate(ws.root).call("find_files", { pattern: " " }), ws, "`pattern`");
  });
});
