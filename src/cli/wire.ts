import { formatWireEntry, readWireLog, wireLogPath } from "../trace/wire-log.ts";
import type { CliArgs } from "./args.ts";
import { workspaceRoot } from "../session/workspace-root.ts";

/** `glassbox wire`: one line per logged model request and response. */
export function printWire(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): number {
  const root = workspaceRoot(args.workspace);
  const entries = readWireLog(wireLogPath(root));
  if (entries.length === 0) out("no model traffic logged yet in this workspace");
  for (const entry of entries) out(formatWireEntry(entry));
  return 0;
}
