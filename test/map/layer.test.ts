// Config repo_map.layer: the map joins the system prompt as a layer built once at the run's
// start, recorded in run_start like the others, and shown by glassbox audit (never pinned).
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { glassbox, scriptFile } from "../helpers/cli.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { call } from "../helpers/run.ts";
import { CASES } from "./fixtures.ts";

function workspace(layer: boolean): string {
  const root = tempFolder("map-layer");
  for (const one of CASES.slice(3, 6)) {
    mkdirSync(dirname(join(root, one.path)), { recursive: true });
    writeFileSync(join(root, one.path), one.text);
  }
  writeFileSync(join(root, "glassbox.json"), JSON.stringify({ repo_map: { layer } }));
  return root;
}

test("with repo_map.layer the run's prompt carries the map, as the layer `map` in run_start; without it, not", async () => {
  const model = scriptFile([call("list_files"), call("finish", { summary: "done" })]);
  const root = workspace(true);
  const shown = await glassbox(["run", "--json", "--show-prompt", "--model", model, "--workspace", root, "look around"]);
  expect(shown.stderr).toContain("──── layer map (map, ");
  expect(shown.stderr).toContain("pkg/widget.py:\n  1: class Widget:");
  const start = shown.events.find((event) => event.kind === "run_start")!;
  expect(start.prompt_layers.map((layer: { name: string; origin: string }) => `${layer.name}:${layer.origin}`)).toEqual(["00-base:builtin", "map:map"]);
  const off = await glassbox(["run", "--json", "--model", model, "--workspace", workspace(false), "look around"]);
  expect(off.events.find((event) => event.kind === "run_start")!.prompt_layers.map((layer: { name: string }) => layer.name)).toEqual(["00-base"]);
});

test("glassbox audit lists the map layer and prints its text; it is never written to prompts.lock", async () => {
  const root = workspace(true);
  const printed = await glassbox(["audit", "--print", "--workspace", root]);
  expect(printed.stdout).toMatch(/^map\s+map\s+[0-9a-f]{16}\s+\d+$/m);
  expect(printed.stdout).toContain("widget/widget.go:\n  3: type Widget struct");
  const locked = await glassbox(["audit", "--write-lock", "--workspace", root]);
  expect(locked.stdout).not.toContain("map (map)");
  expect((await glassbox(["audit", "--check", "--workspace", root])).code).toBe(0);
});
