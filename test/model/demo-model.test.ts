import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { glassbox } from "../helpers/cli.ts";

/**
 * The built-in model's recorded prompt sizes are the prompts it is really sent, as Qwen2.5's
 * template and tokenizer count them (scripts/demo-usage.ts writes them, with a real llama-server).
 * Figures from a smaller tool set made the demo's first screen warn that the server had cut the
 * prompt; a newcomer reads that as a broken install.
 */
test("the demo's recorded prompt sizes fit what it sends: no truncation warning, each within 30% of the estimate", async () => {
  const result = await glassbox(["run", "--demo", "--json"]);
  expect(result.code).toBe(0);
  const start = result.events.find((event) => event.kind === "run_start")!;
  rmSync(dirname(start.workspace), { recursive: true, force: true });
  expect(result.events.filter((event) => event.kind === "truncation_suspected")).toEqual([]);
  const estimates = result.events.filter((event) => event.kind === "model_request").map((event) => event.estimated_prompt_tokens);
  const reported = result.events.filter((event) => event.kind === "model_reply").map((event) => event.prompt_tokens);
  expect(reported).toHaveLength(estimates.length);
  // Stale figures are far off (812 reported against 2,172 estimated); run scripts/demo-usage.ts when the tools change.
  reported.forEach((count, step) => expect(Math.abs(count - estimates[step]) / count).toBeLessThan(0.3));
});
