import { listSessions, shortTime, summarize, type SessionSummary } from "./store.ts";

const TASK_WIDTH = 48;

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
