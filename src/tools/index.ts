import type { Tool } from "./tool.ts";
import type { Checks } from "./checks.ts";
import { listFiles } from "./list_files.ts";
import { readFile } from "./read_file.ts";
import { searchText } from "./search_text.ts";
import { writeFile } from "./write_file.ts";
import { editFile } from "./edit_file.ts";
import { RUN_CHECK, makeRunCheck } from "./run_check.ts";
import { currentTime } from "./current_time.ts";
import { updateTodo } from "./update_todo.ts";
import { finish } from "./finish.ts";

const FILE_TOOLS: Tool[] = [listFiles, readFile, searchText, writeFile, editFile];
const STATE_TOOLS: Tool[] = [currentTime, updateTodo, finish];

/** Every tool name an approval rule may name, whether or not a run offers it. */
export const TOOL_NAMES = [...FILE_TOOLS, ...STATE_TOOLS].map((tool) => tool.name).concat(RUN_CHECK);

/** The default tool set (CONTRACT.md); run_check exists when checks are configured. */
export function defaultTools(checks: Checks): Tool[] {
  const runCheck = makeRunCheck(checks);
  return [...FILE_TOOLS, ...(runCheck ? [runCheck] : []), ...STATE_TOOLS];
}
