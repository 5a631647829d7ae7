import { listSessions, shortTime, summarize, type SessionSummary } from "../session/store.ts";
import { workspaceRoot } from "../session/workspace-root.ts";
import type { CliArgs } from "./args.ts";
import { UsageError } from "../session/usage-error.ts";

const TASK_WIDTH = 48;

/** `glassbox sessions`: the workspace's saved sessions, most recently used first. */
export function printSessions(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): number {
  if (args.task) throw new UsageError(`sessions takes no arguments but --workspace DIR, got "${args.task}"`);
  const root = workspaceRoot(args.workspace);
  const sessions = listSessions(root).map(summarize);
  if (sessions.length === 0) {
    out(`no saved sessions in ${root}; every conversation (glassbox, glassbox run) is saved in .glassbox/sessions`);
    return 0;
  }
  const rows = [["ID", "STARTED", "MODEL", "RUNS", "FIRST TASK", "LAST STATUS"], ...sessions.map(row)];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((cells) => cells[column]!.length)));
  for (const cells of rows) out(cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  "));
  out("glassbox --continue reopens the first; glassbox --session ID a given one");
  return 0;
}

function row(session: SessionSummary): string[] {
  const task = session.firstTask.replace(/\s+/g, " ").trim();
  const damaged = session.skipped ? ` (${session.skipped} damaged line(s) skipped)` : "";
  return [
    session.id,
    shortTime(session.startedAt),
    session.model || "-",
    String(session.runs),
    task.length > TASK_WIDTH ? task.slice(0, TASK_WIDTH - 1) + "…" : task || "-",
    session.lastStatus + damaged,
  ];
}
