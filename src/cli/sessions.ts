import { sessionLines } from "../session/session-table.ts";
import { workspaceRoot } from "../session/workspace-root.ts";
import type { CliArgs } from "./args.ts";
import { UsageError } from "../protocol/usage-error.ts";

/** `glassbox sessions`: the workspace's saved sessions, most recently used first. */
export function printSessions(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): number {
  if (args.task) throw new UsageError(`sessions takes no arguments but --workspace DIR, got "${args.task}"`);
  for (const line of sessionLines(workspaceRoot(args.workspace))) out(line);
  return 0;
}
