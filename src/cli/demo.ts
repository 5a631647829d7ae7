import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CliArgs } from "./args.ts";

export const DEMO_TASK = "The tests fail. Find out why and fix it.";

/** The bundled toy project: a version comparer whose tests fail because of a real bug. */
export const TOY_WORKSPACE = join(import.meta.dir, "..", "..", "workspace");

/** A fresh temporary copy of the toy workspace, so the demo never touches the original. */
export function copyToyWorkspace(into = mkdtempSync(join(tmpdir(), "glassbox-demo-"))): string {
  const target = join(into, "workspace");
  cpSync(TOY_WORKSPACE, target, { recursive: true, filter: (source) => !source.includes(".glassbox") });
  return target;
}

/**
 * The demo: the built-in scripted model fixes the toy project's bug on a temporary copy. Edits
 * are allowed by rule there, because the copy is thrown away.
 */
export function demoArgs(args: CliArgs): CliArgs {
  return {
    ...args,
    command: "run",
    task: DEMO_TASK,
    model: `scripted:${join(import.meta.dir, "demo-script.json")}`,
    workspace: copyToyWorkspace(),
    config: undefined,
    allow: [...args.allow, "edit_file"],
  };
}
