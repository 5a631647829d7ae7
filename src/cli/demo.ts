import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_MODEL } from "../session/demo-model.ts";
import type { CliArgs } from "./args.ts";
import { copyToyWorkspace } from "./toy-workspace.ts";

export { copyToyWorkspace };

export const DEMO_TASK = "The tests fail. Find out why and fix it.";

/** The demo's arguments: a fresh temporary copy of the toy workspace, never the original. */
export function demoArgs(args: CliArgs, headless: boolean): CliArgs {
  return {
    ...args,
    command: headless ? "run" : "tui",
    task: DEMO_TASK,
    model: DEMO_MODEL,
    workspace: demoWorkspace(),
    config: undefined,
    // Nobody is there to press y in a headless demo; the copy is thrown away, so edits are allowed.
    allow: headless ? [...args.allow, "edit_file"] : args.allow,
  };
}

/**
 * The demo's copy of the toy workspace. The verification gate is part of the tour (`verify:
 * "tests"`): answering n ends with the gate refusing the model's finish. The demo pins its own
 * step budget, like an eval task, so the tour (9 replies when the edit is denied) is the same
 * whatever the defaults.
 */
function demoWorkspace(): string {
  const root = copyToyWorkspace();
  const path = join(root, "glassbox.json");
  const config = JSON.parse(readFileSync(path, "utf8"));
  writeFileSync(path, JSON.stringify({ ...config, verify: "tests", limits: { ...config.limits, max_steps: DEMO_MAX_STEPS } }, null, 2) + "\n");
  return root;
}

const DEMO_MAX_STEPS = 12;
