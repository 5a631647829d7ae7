import type { Tool } from "./tool.ts";
import type { Checks } from "./checks.ts";
import { listFiles } from "./list_files.ts";
import { readFile } from "./read_file.ts";
import { searchText } from "./search_text.ts";
import { findFiles } from "./find_files.ts";
import { writeFile } from "./write_file.ts";
import { makeEditFile } from "./edit_file.ts";
import { deleteFile } from "./delete_file.ts";
import { moveFile } from "./move_file.ts";
import { RUN_CHECK, makeRunCheck } from "./run_check.ts";
import { makeRunCommand } from "./run_command.ts";
import { currentTime } from "./current_time.ts";
import { updateTodo } from "./update_todo.ts";
import { finish } from "./finish.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import type { Components } from "../protocol/components.ts";

/**
 * The default tool set (CONTRACT.md); run_check exists when checks are configured; run_command
 * always, asking a person unless a rule allows the command. Switched-off
 * components change it: no plan state, no update_todo; no guarded edits, no syntax check.
 */
export function defaultTools(
  checks: Checks,
  editChecks: Checks = {},
  sandbox?: Sandbox,
  components: Pick<Components, "plan_state" | "guarded_edits"> = { plan_state: true, guarded_edits: true },
): Tool[] {
  const runCheck = makeRunCheck(checks, sandbox);
  const plan = components.plan_state ? [updateTodo] : [];
  return [listFiles, readFile, searchText, findFiles, writeFile, makeEditFile(editChecks, components.guarded_edits), deleteFile, moveFile, ...(runCheck ? [runCheck] : []), makeRunCommand(sandbox), currentTime, ...plan, finish];
}

/** Every tool name an approval rule may name, whether or not a run offers it. */
export const TOOL_NAMES = defaultTools({}).map((tool) => tool.name).concat(RUN_CHECK);
