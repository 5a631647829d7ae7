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
import { makeRunCheck } from "./run_check.ts";
import { RUN_CHECK } from "../protocol/tool-names.ts";
import { makeRunCommand } from "./run_command.ts";
import { currentTime } from "./current_time.ts";
import { updateTodo } from "./update_todo.ts";
import { finish } from "./finish.ts";
import { makeRepoMap } from "./repo_map.ts";
import { findSymbol } from "./find_symbol.ts";
import { findReferences } from "./find_references.ts";
import { TouchedFiles, touching } from "./map-files.ts";
import { explore } from "./explore.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import type { Components } from "../protocol/components.ts";

/**
 * The default tool set (CONTRACT.md); run_check exists when checks are configured; run_command
 * always, asking a person unless a rule allows the command. Switched-off
 * components change it: no plan state, no update_todo; no guarded edits, no syntax check; no loose
 * edits, `old` matched exactly only; no repo_map, none of the map's three tools; no symbol_tools,
 * no find_symbol and find_references; no explore, no sub-runs. The map leans toward the files the
 * read and edit tools have touched in the session. `explore` comes after the tools a sub-run is
 * offered (SUB_RUN_TOOLS, in this order), so a sub-run's tools block shares the parent's up to
 * the first tool it lacks.
 */
export function defaultTools(
  checks: Checks,
  editChecks: Checks = {},
  sandbox?: Sandbox,
  components: Pick<Components, "plan_state" | "guarded_edits" | "loose_edits" | "repo_map" | "symbol_tools" | "explore"> = {
    plan_state: true,
    guarded_edits: true,
    loose_edits: true,
    repo_map: true,
    symbol_tools: true,
    explore: true,
  },
  mapTokens = 1024,
): Tool[] {
  const runCheck = makeRunCheck(checks, sandbox);
  const plan = components.plan_state ? [updateTodo] : [];
  const touched = new TouchedFiles();
  const symbols = components.symbol_tools ? [findSymbol, findReferences] : [];
  const map = components.repo_map ? [makeRepoMap(mapTokens, touched), ...symbols] : [];
  const edits = [touching(writeFile, touched), touching(makeEditFile(editChecks, components.guarded_edits, components.loose_edits), touched)];
  const sub = components.explore ? [explore] : [];
  return [listFiles, touching(readFile, touched), searchText, findFiles, ...map, ...edits, deleteFile, moveFile, ...(runCheck ? [runCheck] : []), makeRunCommand(sandbox), ...sub, currentTime, ...plan, finish];
}

/** Every tool name an approval rule may name, whether or not a run offers it. */
export const TOOL_NAMES = defaultTools({}).map((tool) => tool.name).concat(RUN_CHECK);
