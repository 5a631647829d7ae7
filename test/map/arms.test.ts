// The eval lab's arms for the map: each config file parses, and gives the tools and layer it names.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigSchema } from "../../src/session/config.ts";
import { defaultTools } from "../../src/tools/index.ts";

const CONFIGS = join(import.meta.dir, "..", "..", "evals", "configs");

function arm(name: string) {
  const config = ConfigSchema.parse(JSON.parse(readFileSync(join(CONFIGS, `${name}.json`), "utf8")));
  const tools = defaultTools({}, {}, undefined, config.components).map((tool) => tool.name).filter((tool) => ["repo_map", "find_symbol", "find_references"].includes(tool));
  return { tools, layer: config.repo_map.layer };
}

test("every arm in evals/configs is a valid config", () => {
  for (const file of readdirSync(CONFIGS).filter((name) => name.endsWith(".json"))) expect(() => ConfigSchema.parse(JSON.parse(readFileSync(join(CONFIGS, file), "utf8")))).not.toThrow();
});

test("the map's arms: as a tool (baseline), off, without the symbol tools, as a layer too, as a layer alone", () => {
  expect(arm("baseline")).toEqual({ tools: ["repo_map", "find_symbol", "find_references"], layer: false });
  expect(arm("no-repo-map")).toEqual({ tools: [], layer: false });
  expect(arm("no-symbol-tools")).toEqual({ tools: ["repo_map"], layer: false });
  expect(arm("map-layer")).toEqual({ tools: ["repo_map", "find_symbol", "find_references"], layer: true });
  expect(arm("map-layer-no-tools")).toEqual({ tools: [], layer: true });
});
