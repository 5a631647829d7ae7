/**
 * The messages sent in a workspace, for ↑ and ↓: `.glassbox/history`, one JSON string a line,
 * oldest first, kept across restarts. Messages are kept as typed; slash commands are not kept.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { glassboxFolder, makeGlassboxFolder } from "../../platform/glassbox-folder.ts";

/** The most messages read back at start: older ones stay in the file but are not walked. */
export const HISTORY_KEPT = 1000;

export function historyPath(workspaceRoot: string): string {
  return glassboxFolder(workspaceRoot, "history");
}

/** Whether a message goes into the history: not empty, not a slash command. */
export function worthKeeping(message: string): boolean {
  return message.trim() !== "" && !message.startsWith("/");
}

export class History {
  /** Oldest first. */
  private readonly entries: string[];
  /** While walking: the index of the entry shown; entries.length means the draft. */
  private at: number;
  /** What was being typed when the walk began, given back past the newest entry. */
  private draft = "";

  constructor(
    private readonly path: string,
    /** Where a failed write is said (the history is a convenience: a full disk must not stop a message). */
    private readonly warn: (text: string) => void = () => {},
  ) {
    this.entries = readHistory(path);
    this.at = this.entries.length;
  }

  get length(): number {
    return this.entries.length;
  }

  /** Records a sent message (unless it is not worth keeping, or repeats the newest) and ends the walk. */
  add(message: string): void {
    this.at = this.entries.length;
    if (!worthKeeping(message) || this.entries.at(-1) === message) return;
    this.entries.push(message);
    this.at = this.entries.length;
    try {
      makeGlassboxFolder(dirname(this.path));
      appendFileSync(this.path, JSON.stringify(message) + "\n");
    } catch (error) {
      this.warn(`history not saved: cannot write .glassbox/history (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }

  /** ↑: the next older message, or null at the oldest. `current` is the input's text, kept as the draft when the walk begins. */
  older(current: string): string | null {
    if (this.at === 0) return null;
    if (this.at === this.entries.length) this.draft = current;
    return this.entries[--this.at]!;
  }

  /** ↓: the next newer message, the draft past the newest, or null when not walking. */
  newer(): string | null {
    if (this.at >= this.entries.length) return null;
    this.at++;
    return this.at === this.entries.length ? this.draft : this.entries[this.at]!;
  }
}

/** The last HISTORY_KEPT messages of the file; a line that is not a JSON string (a cut-off write) is skipped. */
function readHistory(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === "string" && worthKeeping(value)) entries.push(value);
    } catch {
      // skipped
    }
  }
  return entries.slice(-HISTORY_KEPT);
}
