import { listSessions, shortTime, summarize, type SessionSummary } from "../session/store.ts";
import { workspaceRoot } from "../session/workspace-root.ts";
import type { CliArgs } from "./args.ts";
import { UsageError } from "../protocol/usage-error.ts";

const TASK_WIDTH = 48;

/** `glassbox sessions`: the workspace's saved sessions, most recently used first. */
export function printSessions(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): number {
  if (args.task) throw new UsageError(`sessions takes no arguments but --workspace DIR, got "${args.task}"`);
  for (const line of sessionLines(workspaceRoot(args.workspace))) out(line);
  return 0;
}

/** The saved sessions of a workspace as a table, most recently used first (also the TUI's /sessions). */
export function sessionLines(root: string): string[] {
  const sessions = listSessions(root).map(summarize);
  if (sessions.length === 0) return [`no saved sessions in ${root}; every conversation (glassbox, glassbox run) is saved in .glassbox/sessions`];
  const rows = [["ID", "STARTED", "MODEL", "RUNS", "FIRST TASK", "LAST STATUS"], ...sessions.map(row)];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((cells) => cells[column]!.length)));
  return [
    ...rows.map((cells) => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ")),
    "glassbox --continue reopens the first; glassbox --session ID a given one",
  ];
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
