/** The tool whose rules match a command line, where `*` crosses `/` (a command line is not a path). */
export const RUN_COMMAND = "run_command";
/** The configured checks' tool. */
export const RUN_CHECK = "run_check";
/** The tools whose tool_call event lists the workspace files they changed (CONTRACT.md). */
export const CHANGE_REPORTING_TOOLS: readonly string[] = [RUN_COMMAND, RUN_CHECK];

/**
 * A tool name as the model may spell it: case and `-` versus `_` set aside. Small models write
 * `Read_File` or `read-file` for `read_file`; the spelling carries no other meaning.
 */
function looseName(name: string): string {
  return name.toLowerCase().replaceAll("-", "_");
}

/**
 * The offered name a model's tool name reaches: itself when offered, else the one offered name it
 * matches loosely. Two offered names that match each other loosely are reached only exactly, so a
 * loose spelling never picks between them. null: no offered tool.
 */
export function offeredName(name: string, offered: readonly string[]): string | null {
  if (offered.includes(name)) return name;
  const loose = looseName(name);
  const matches = offered.filter((candidate) => looseName(candidate) === loose);
  return matches.length === 1 ? matches[0]! : null;
}
