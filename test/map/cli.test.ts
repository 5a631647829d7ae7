// `glassbox map` prints what repo_map gives the model: the same walk, budget and cache.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseCli } from "../../src/cli/args.ts";
import { printMap } from "../../src/cli/map.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { gate } from "../tools/harness.ts";
import { CASES } from "./fixtures.ts";

function workspace(): string {
  const root = tempFolder("map-cli");
  for (const one of CASES) {
    mkdirSync(dirname(join(root, one.path)), { recursive: true });
    writeFileSync(join(root, one.path), one.text);
  }
  return root;
}

async function map(argv: string[]): Promise<{ code: number; text: string }> {
  const printed: string[] = [];
  const code = await printMap(parseCli(["map", ...argv]), (text) => printed.push(text));
  return { code, text: printed.join("\n") };
}

test("prints exactly what repo_map returns, PATH, --tokens and --focus included; the cache goes to .glassbox/map/", async () => {
  const root = workspace();
  const whole = await map(["--workspace", root]);
  expect(whole.code).toBe(0);
  expect(whole.text).toBe((await gate(root).call("repo_map", {})).content);
  expect(existsSync(join(root, ".glassbox", "map", "tags.json"))).toBe(true);
  expect((await map(["src/widget.rs", "--workspace", root])).text).toBe((await gate(root).call("repo_map", { path: "src/widget.rs" })).content);
  const small = await map(["--workspace", root, "--tokens", "100", "--focus", "render_all"]);
  expect(small.text).toMatch(/\[cut to 100 tokens: /);
  expect(() => parseCli(["map", "--tokens", "ten"])).toThrow(/--tokens "ten" is not a whole number/);
});

test("the default budget follows the window: an eighth of num_ctx", async () => {
  const root = workspace();
  writeFileSync(join(root, "glassbox.json"), JSON.stringify({ model_options: { num_ctx: 1024 } }));
  expect((await map(["--workspace", root])).text).toMatch(/\[cut to 128 tokens: /);
  writeFileSync(join(root, "glassbox.json"), JSON.stringify({ model_options: { num_ctx: 1024 }, repo_map: { tokens: 96 } }));
  expect((await map(["--workspace", root])).text).toMatch(/\[cut to 96 tokens: /);
});
