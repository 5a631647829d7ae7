import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { listFiles } from "../../src/tools/list_files.ts";
import { CANARY, makeWorkspace, type TestWorkspace } from "../helpers/workspace.ts";
import { expectRefused, gate, runTool } from "./harness.ts";

const TOY_LISTING = [".:", "AGENTS.md", "NOTES.md", "README.md", "glassbox.json", "package.json", "prompts.lock", "src/", "  version.ts", "test/", "  version.test.ts"];

describe("the toy workspace as it ships", () => {
  test("is listed recursively, sorted, folders marked with /", async () => {
    const ws = makeWorkspace();
    const verdict = await gate(ws.root).call("list_files", {});
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toBe(TOY_LISTING.join("\n"));
  });

  test("directory '.' is the same as no directory", async () => {
    const ws = makeWorkspace();
    expect((await gate(ws.root).call("list_files", { directory: "." })).content).toBe(TOY_LISTING.join("\n"));
  });
});

describe("what is hidden, and what is not followed", () => {
  let ws: TestWorkspace;
  let listing: string;

  beforeAll(async () => {
    ws = makeWorkspace();
    const r = (name: string) => join(ws.root, name);
    writeFileSync(r(".env"), "SECRET=1\n");
    writeFileSync(r(".env.production"), "SECRET=1\n");
    writeFileSync(r(".Env"), "SECRET=1\n");
    mkdirSync(r(".git/objects"), { recursive: true });
    writeFileSync(r(".git/HEAD"), "ref\n");
    mkdirSync(r(".glassbox/runs"), { recursive: true });
    writeFileSync(r(".glassbox/runs/run-1.jsonl"), "{}\n");
    mkdirSync(r("pkg/.git"), { recursive: true });
    writeFileSync(r("pkg/.git/config"), "x\n");
    writeFileSync(r("pkg/.env.local"), "x\n");
    writeFileSync(r("pkg/index.ts"), "export {};\n");
    writeFileSync(r(".gitignore"), "*.log\n");
    mkdirSync(r("node_modules/dep"), { recursive: true });
    writeFileSync(r("node_modules/dep/index.js"), "x\n");
    symlinkSync(join(ws.outside, "secrets"), r("outside-link"));
    symlinkSync(ws.canaryPath, r("canary-link"));
    symlinkSync("src", r("src-link"));
    symlinkSync(".", r("self-link"));
    symlinkSync(".env", r("env-link"));
    symlinkSync("/dev/zero", r("zero"));
    mkdirSync(r("docs"));
    symlinkSync("../README.md", r("docs/readme-link"));
    listing = (await gate(ws.root).call("list_files", {})).content;
  });

  const hidden: Array<[string, RegExp]> = [
    [".env", /^\s*\.env$/m],
    [".env.production", /^\s*\.env\.production$/m],
    [".Env", /^\s*\.Env$/m],
    ["node_modules, though no .gitignore line names it", /node_modules/],
    [".git at the root", /^\.git\/$/m],
    [".git's files", /HEAD|objects/],
    [".glassbox and its runs", /\.glassbox|run-1\.jsonl/],
    ["a nested .git", /^\s+\.git\/$/m],
    ["a nested .env.local", /^\s+\.env\.local$/m],
    ["a link to a folder outside", /outside-link/],
    ["what is in that folder", /canary\.txt/],
    ["a link to a file outside", /canary-link/],
    ["a link to .env", /env-link/],
    ["a link to /dev/zero", /zero/],
  ];
  for (const [label, pattern] of hidden) {
    test(`hides ${label}`, () => {
      expect(listing).not.toMatch(pattern);
    });
  }

  test("never shows the canary's content or a machine path", () => {
    expect(listing).not.toContain(CANARY);
    expect(listing).not.toContain(ws.outside);
  });

  const shown: Array<[string, RegExp]> = [
    [".gitignore (not off limits)", /^\.gitignore$/m],
    ["pkg and its ordinary file", /^pkg\/\n  index\.ts$/m],
    ["a link to a folder inside, not entered", /^src-link\/$/m],
    ["a link to the root itself, not entered", /^self-link\/$/m],
  ];
  for (const [label, pattern] of shown) {
    test(`shows ${label}`, () => {
      expect(listing).toMatch(pattern);
    });
  }

  test("does not enter node_modules or linked folders (no loop, no duplicates)", () => {
    expect(listing).not.toContain("dep");
    expect(listing.match(/version\.ts$/gm)).toHaveLength(1);
  });

  test("a linked file is listed under its own name, where it can be read", async () => {
    expect(listing).toMatch(/^docs\/\n  readme-link$/m);
    const read = await gate(ws.root).call("read_file", { path: "docs/readme-link" });
    expect(read.decision).toBe("allowed");
  });

  test("listing a subfolder shows only it, headed by its path", async () => {
    const verdict = await gate(ws.root).call("list_files", { directory: "pkg" });
    expect(verdict.content).toBe("pkg:\nindex.ts");
  });

  test("listing through a link to a folder inside works and is named by the real folder", async () => {
    const verdict = await gate(ws.root).call("list_files", { directory: "src-link" });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toBe("src:\nversion.ts");
  });
});

describe("refusals and edges", () => {
  let ws: TestWorkspace;
  beforeAll(() => {
    ws = makeWorkspace();
    mkdirSync(join(ws.root, "empty-dir"));
  });

  test("a file given as directory is refused, naming `directory`", async () => {
    expectRefused(await gate(ws.root).call("list_files", { directory: "README.md" }), ws, "`directory`", "`README.md`", /not a folder/);
  });

  test("a folder that does not exist is refused", async () => {
    expectRefused(await gate(ws.root).call("list_files", { directory: "nope" }), ws, "`directory`", "`nope`");
  });

  test("an empty folder says so", async () => {
    const verdict = await gate(ws.root).call("list_files", { directory: "empty-dir" });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toBe("empty-dir: empty");
  });
});

describe("caps", () => {
  test("a folder with more entries than the cap lists the first ones and counts the rest", async () => {
    const ws = makeWorkspace();
    const many = join(ws.root, "many");
    mkdirSync(many);
    for (let i = 0; i < 350; i++) writeFileSync(join(many, `f${String(i).padStart(3, "0")}.txt`), "");
    const text = await runTool(listFiles, { directory: "many" }, ws.root);
    const lines = text.split("\n");
    expect(lines[0]).toBe("many:");
    expect(lines[1]).toBe("f000.txt");
    expect(lines[300]).toBe("f299.txt");
    expect(lines[301]).toBe("[… 50 more entries not listed; list a subfolder]");
    expect(lines).toHaveLength(302);
    expect(text).not.toContain("f300.txt");
  });

  test("the cap counts entries at every depth", async () => {
    const ws = makeWorkspace();
    for (let d = 0; d < 40; d++) {
      const dir = join(ws.root, "deep", `d${String(d).padStart(2, "0")}`);
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 9; f++) writeFileSync(join(dir, `f${f}`), "");
    }
    // 1 (deep/) + 40 folders + 360 files = 401 entries below the root, besides the toy's own.
    const text = await runTool(listFiles, { directory: "deep" }, ws.root);
    const more = /\[… (\d+) more entries not listed/.exec(text);
    expect(more).not.toBeNull();
    expect(Number(more![1]) + 300).toBe(400);
  });
});
