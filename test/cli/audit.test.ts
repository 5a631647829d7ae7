import { describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { glassbox, scriptFile } from "../helpers/cli.ts";
import { makeWorkspace } from "../helpers/workspace.ts";
import { TOY_FILES } from "../../src/session/toy-workspace.ts";

const TOY = join(import.meta.dir, "..", "..", "workspace");

test("audit --check passes on the shipped toy workspace with its committed prompts.lock", async () => {
  const result = await glassbox(["audit", "--check", "--workspace", TOY]);
  expect(result.stdout).toContain("prompts.lock matches: 2 layers");
  expect(result.code).toBe(0);
});

test("the embedded toy workspace is the workspace/ folder, file for file", () => {
  const onDisk = [...new Bun.Glob("**/*").scanSync({ cwd: TOY, dot: true })].filter((path) => !path.startsWith(".glassbox/")).sort();
  expect(Object.keys(TOY_FILES).sort()).toEqual(onDisk);
  for (const path of onDisk) expect(TOY_FILES[path]).toBe(readFileSync(join(TOY, path), "utf8"));
});

describe("audit on a copy, after each kind of drift", () => {
  test.each([
    ["ADDED", (root: string) => (mkdirSync(join(root, "prompts")), writeFileSync(join(root, "prompts", "20-extra.md"), "extra")), /^ADDED 20-extra \(file\) [0-9a-f]{16}$/],
    ["CHANGED", (root: string) => writeFileSync(join(root, "AGENTS.md"), "changed text"), /^CHANGED AGENTS\.md \(workspace\) [0-9a-f]{16} -> [0-9a-f]{16}$/],
    ["REMOVED", (root: string) => rmSync(join(root, "AGENTS.md")), /^REMOVED AGENTS\.md$/],
    ["ORIGIN", (root: string) => (mkdirSync(join(root, "prompts")), writeFileSync(join(root, "prompts", "00-base.md"), readFileSync(join(import.meta.dir, "..", "..", "prompts", "00-base.md")))), /^ORIGIN 00-base builtin -> file$/],
  ] as Array<[string, (root: string) => void, RegExp]>)("%s: --check exits 1 with the finding", async (_kind, drift, line) => {
    const ws = makeWorkspace();
    drift(ws.root);
    const result = await glassbox(["audit", "--check", "--workspace", ws.root]);
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    expect(result.stdout.trim()).toMatch(line);
  });

  test("--write-lock then --check passes again", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "AGENTS.md"), "new rules");
    expect((await glassbox(["audit", "--write-lock", "--workspace", ws.root])).code).toBe(0);
    expect((await glassbox(["audit", "--check", "--workspace", ws.root])).code).toBe(0);
  });

  test("a missing lock fails with the way forward", async () => {
    const ws = makeWorkspace();
    rmSync(join(ws.root, "prompts.lock"));
    const result = await glassbox(["audit", "--check", "--workspace", ws.root]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("glassbox audit --write-lock");
  });
});

describe("the table and the text", () => {
  test("no flags: a table of every layer and a total row", async () => {
    const result = await glassbox(["audit", "--workspace", TOY]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^name\s+origin\s+digest\s+chars$/);
    expect(lines[1]).toMatch(/^00-base\s+builtin\s+[0-9a-f]{16}\s+\d+$/);
    expect(lines[2]).toMatch(/^AGENTS\.md\s+workspace\s+[0-9a-f]{16}\s+\d+$/);
    expect(lines[3]).toMatch(/^total\s+2 layers\s+\d+$/);
  });

  test("--print: the table, then the assembled text exactly as sent", async () => {
    const result = await glassbox(["audit", "--print", "--workspace", TOY]);
    expect(result.stdout).toContain("You are a coding assistant");
    expect(result.stdout).toContain(readFileSync(join(TOY, "AGENTS.md"), "utf8").trimEnd());
  });

  test("two modes at once is a usage error", async () => {
    const result = await glassbox(["audit", "--check", "--print", "--workspace", TOY]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("one of --check, --write-lock, --print");
  });
});

describe("in runs", () => {
  test("run_start records each layer's name, origin and digest", async () => {
    const ws = makeWorkspace();
    const result = await glassbox(["run", "--json", "--model", scriptFile([{ content: "hi" }]), "--workspace", ws.root, "task"]);
    const start = result.events[0]!;
    expect(start.prompt_layers.map((layer: any) => `${layer.name}:${layer.origin}`)).toEqual(["00-base:builtin", "AGENTS.md:workspace"]);
    expect(start.prompt_layers[0].digest).toMatch(/^[0-9a-f]{16}$/);
    expect(result.events.some((event) => event.kind === "prompt_drift")).toBe(false);
  });

  test("drift is a warning event in a run, and --strict-prompt makes it exit 2 before anything runs", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "AGENTS.md"), "drifted");
    const warned = await glassbox(["run", "--json", "--model", scriptFile([{ content: "hi" }]), "--workspace", ws.root, "task"]);
    expect(warned.code).toBe(0);
    expect(warned.events[1]).toMatchObject({ kind: "prompt_drift" });
    expect(warned.events[1]!.findings[0]).toMatch(/^CHANGED AGENTS\.md/);
    const strict = await glassbox(["run", "--json", "--strict-prompt", "--model", scriptFile([{ content: "hi" }]), "--workspace", ws.root, "task"]);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain("CHANGED AGENTS.md");
    expect(strict.stdout).toBe("");
  });

  test("--show-prompt prints the prompt with each layer's boundary marked", async () => {
    const ws = makeWorkspace();
    const result = await glassbox(["run", "--show-prompt", "--model", scriptFile([{ content: "hi" }]), "--workspace", ws.root, "task"]);
    expect(result.stdout).toContain("──── layer 00-base (builtin,");
    expect(result.stdout).toContain("──── layer AGENTS.md (workspace,");
  });
});
