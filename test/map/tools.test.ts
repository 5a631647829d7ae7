// The map's three tools through the real checkpoint: the same files as the tree tools (ignored
// folders and node_modules left out), exact names, the cap, and what they add to a request.
import { beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { defaultTools } from "../../src/tools/index.ts";
import { DEFAULT_COMPONENTS } from "../../src/protocol/components.ts";
import { builtinLayers, assemble } from "../../src/prompt/layers.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { gate } from "../tools/harness.ts";
import { CASES } from "./fixtures.ts";

let root: string;
beforeAll(() => {
  root = tempFolder("map-tools");
  const files: Record<string, string> = {
    ".gitignore": "build/\n",
    "build/out.py": "def render_all(items):\n    return items\n",
    "node_modules/dep/index.js": "function renderAll() {}\nrenderAll();\n",
    ...Object.fromEntries(CASES.map((one) => [one.path, one.text])),
  };
  for (let i = 0; i < 60; i++) files[`many/m${i}.py`] = "from pkg.widget import render_all\nrender_all([])\n\ndef setup():\n    pass\n";
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
});

test("find_symbol: each definition as path:line: signature, in every language; ignored files and node_modules never", async () => {
  const result = await gate(root).call("find_symbol", { name: "render_all" });
  expect(result.content.split("\n").sort()).toEqual([
    "lib/widget.rb:9: def render_all(items)",
    "pkg/widget.py:6: def render_all(items):",
    "src/Widget.php:10: function render_all(): Widget",
    "src/widget.c:7: int render_all(Widget *w)",
    "src/widget.cpp:10: int render_all()",
    "src/widget.rs:11: pub fn render_all() -> Widget",
  ]);
  expect((await gate(root).call("find_symbol", { name: "render" })).content).toBe('No definition of "render" in files the map parses.');
  const many = (await gate(root).call("find_symbol", { name: "setup" })).content.split("\n");
  expect(many).toHaveLength(51);
  expect(many.at(-1)).toBe("[60 definitions in all, 10 not shown: repo_map with a path narrows]");
});

test("find_references: uses only, with the line, scoped Type::make( calls included, capped like search results", async () => {
  const make = (await gate(root).call("find_references", { name: "make" })).content.split("\n");
  expect(make).toContain("src/widget.rs:12: Widget::make()");
  expect(make).toContain("src/widget.cpp:11: Widget::make();");
  expect(make).toContain("src/Widget.php:12: return Widget::make();");
  expect(make.some((line) => line.startsWith("src/widget.rs:6:"))).toBe(false);
  const many = (await gate(root).call("find_references", { name: "render_all" })).content.split("\n");
  expect(many).toHaveLength(51);
  expect(many.at(-1)).toMatch(/^\[\d+ uses in all, \d+ not shown/);
  expect(many.some((line) => line.startsWith("build/") || line.startsWith("node_modules/"))).toBe(false);
});

test("repo_map: the map, or the part under a path; a path outside the workspace is refused", async () => {
  const whole = (await gate(root).call("repo_map", {})).content;
  expect(whole).toContain("pkg/widget.py:\n  1: class Widget:");
  const part = (await gate(root).call("repo_map", { path: "src/widget.rs" })).content;
  expect(part).toBe("src/widget.rs:\n  1: pub struct Widget\n  6: pub fn make() -> Widget\n  11: pub fn render_all() -> Widget");
  expect((await gate(root).call("repo_map", { path: "../x" })).decision).toBe("refused");
});

test("components.repo_map: false removes the three tools", () => {
  const names = defaultTools({}, {}, undefined, { ...DEFAULT_COMPONENTS, repo_map: false }).map((tool) => tool.name);
  expect(names).not.toContain("repo_map");
  expect(names).not.toContain("find_symbol");
  expect(names).not.toContain("find_references");
});

test("a request's fixed part (system prompt + tool definitions) stays at most 10 KB with the map's tools and explore", () => {
  const tools = defaultTools({ test: { argv: ["true"], timeout_seconds: 60, env: [] } }).map((tool) => {
    const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.schema) as Record<string, unknown>;
    return { type: "function", function: { name: tool.name, description: tool.description, parameters } };
  });
  const definitions = JSON.stringify(tools).length;
  const prompt = assemble(builtinLayers()).length;
  const map = JSON.stringify(tools.filter((tool) => ["repo_map", "find_symbol", "find_references"].includes(tool.function.name))).length;
  const explore = JSON.stringify(tools.filter((tool) => tool.function.name === "explore")).length;
  console.log(`fixed part: ${prompt + definitions} bytes (system prompt ${prompt}, ${tools.length} tool definitions ${definitions}, of which the map's three ${map}, explore ${explore})`);
  expect(explore).toBeGreaterThan(0);
  expect(prompt + definitions).toBeLessThanOrEqual(10 * 1024);
});

test("start pays nothing for the parsers: offering the tools loads no tree-sitter; the first map does", async () => {
  const script = [
    `const { defaultTools } = await import(${JSON.stringify(join(import.meta.dir, "../../src/tools/index.ts"))});`,
    `const { runtimeLoaded } = await import(${JSON.stringify(join(import.meta.dir, "../../src/map/parser.ts"))});`,
    "defaultTools({});",
    "const before = runtimeLoaded();",
    `const { parseProblem } = await import(${JSON.stringify(join(import.meta.dir, "../../src/map/syntax.ts"))});`,
    'await parseProblem("a.py", "x = 1\\n");',
    "console.log(JSON.stringify([before, runtimeLoaded()]));",
  ].join("\n");
  const run = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  expect(run.stdout.toString().trim()).toBe("[false,true]");
});
