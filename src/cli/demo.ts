import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_MODEL } from "../model/demo-model.ts";
import type { CliArgs } from "./args.ts";
import { copyToyWorkspace } from "../session/toy-workspace.ts";
import { UsageError } from "../protocol/usage-error.ts";

export { copyToyWorkspace };

export const DEMO_TASK = "The tests fail. Find out why and fix it.";

/** The demo's arguments: a fresh temporary copy of the toy workspace, never the original. */
export function demoArgs(args: CliArgs, headless: boolean): CliArgs {
  if (args.continue || args.session !== undefined) throw new UsageError("--demo starts on a fresh copy of the toy workspace, so it has no session to continue; drop --continue / --session");
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
 * "tests"`): answering n leaves the tests failing, and the gate refuses the model's finish.
 */
function demoWorkspace(): string {
  const root = copyToyWorkspace();
  const path = join(root, "glassbox.json");
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), verify: "tests" }, null, 2) + "\n");
  return root;
}
