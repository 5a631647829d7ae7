import { resolve } from "node:path";
import { Workspace } from "../tools/workspace.ts";
import { formatWireEntry, readWireLog, wireLogPath } from "../trace/wire-log.ts";
import type { CliArgs } from "./args.ts";
import { UsageError } from "../session/usage-error.ts";

/** `glassbox wire`: one line per logged model request and response. */
export function printWire(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): number {
  let root: string;
  try {
    root = new Workspace(resolve(args.workspace ?? ".")).root;
  } catch {
    throw new UsageError(`workspace ${resolve(args.workspace ?? ".")} does not exist; pass --workspace DIR`);
  }
  const entries = readWireLog(wireLogPath(root));
  if (entries.length === 0) out("no model traffic logged yet in this workspace");
  for (const entry of entries) out(formatWireEntry(entry));
  return 0;
}
