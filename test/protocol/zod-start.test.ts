import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempFolder } from "../helpers/workspace.ts";

const CONFIG = join(import.meta.dir, "../../src/session/config.ts");

/**
 * Counts the functions zod compiles (`new Function` with a body) while a fresh process imports the
 * config module, which parses its defaults, and loads a config file with nested sections.
 */
async function compiledWhileLoading(config: unknown): Promise<number> {
  const dir = tempFolder("zod-start");
  const file = join(dir, "glassbox.json");
  writeFileSync(file, JSON.stringify(config));
  const script = `
    let compiled = 0;
    const real = globalThis.Function;
    globalThis.Function = new Proxy(real, { construct(target, args) { if (String(args.at(-1) ?? "").trim()) compiled++; return Reflect.construct(target, args); } });
    const { loadConfig } = await import(${JSON.stringify(CONFIG)});
    loadConfig(${JSON.stringify(file)}, ${JSON.stringify(dir)});
    console.log(compiled);`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect(err).toBe("");
  expect(code).toBe(0);
  return Number(out.trim());
}

test("a start's one-off parses (the defaults, the config file) compile no fast path", async () => {
  const config = {
    model_options: { max_tokens: 4096, temperature: 0.2 },
    limits: { max_steps: 30 },
    checks: { test: { argv: ["bun", "test"] } },
    mcp_servers: { files: { command: ["files-server"] } },
  };
  expect(await compiledWhileLoading(config)).toBe(0);
});
