import demoScript from "./demo-script.json";
import { ScriptSchema, ScriptedModel } from "../model/scripted.ts";
import type { ModelClient } from "../model/types.ts";
import type { CliArgs } from "./args.ts";
import { copyToyWorkspace } from "./toy-workspace.ts";

export { copyToyWorkspace };

export const DEMO_TASK = "The tests fail. Find out why and fix it.";
export const DEMO_MODEL = "scripted:demo";

/**
 * The built-in scripted model: it lists and reads files, tries to read outside the workspace and
 * is refused, runs the tests and sees them fail, proposes an edit, runs the tests again and
 * finishes. `paceMs` streams it at a model's pace for the TUI.
 */
export function demoModel(paceMs = 0): ModelClient {
  return new ScriptedModel(DEMO_MODEL, ScriptSchema.parse(demoScript), paceMs);
}

/** The demo's arguments: a fresh temporary copy of the toy workspace, never the original. */
export function demoArgs(args: CliArgs, headless: boolean): CliArgs {
  return {
    ...args,
    command: headless ? "run" : "tui",
    task: DEMO_TASK,
    model: DEMO_MODEL,
    workspace: copyToyWorkspace(),
    config: undefined,
    // Nobody is there to press y in a headless demo; the copy is thrown away, so edits are allowed.
    allow: headless ? [...args.allow, "edit_file"] : args.allow,
  };
}
