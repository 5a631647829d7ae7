import type { Session } from "../session/session.ts";
import { attachFiles } from "./composer/attachments.ts";
import type { History } from "./composer/history.ts";
import type { RunControl } from "./run-control.ts";
import { sanitize } from "./sanitize.ts";
import { runSlash, type SlashHost } from "./slash-commands.ts";

/** What Enter on the input may touch. */
export interface SubmitHost {
  session: Pick<Session, "spec" | "workspace" | "limits">;
  history: Pick<History, "add">;
  runs: Pick<RunControl, "submit">;
  /** What the slash commands may do. */
  slash: SlashHost;
  /** Opens the model picker. */
  pickModel(): void;
  /** A notice in the transcript. */
  say(text: string): void;
  /** The status line's warning ("" clears it). */
  warn(text: string): void;
  redraw(): void;
}

/**
 * Enter on the input. A slash command runs (never sent, never kept in the history); a message
 * is kept in the history, gets the text of the files it names with @, and is sent, or queued
 * while a run is active. False keeps the text in the input (a mistake to fix, no model yet).
 */
export function submitInput(typed: string, host: SubmitHost): boolean {
  // Blank lines around it go; a pasted block keeps the indentation of its first line.
  const text = typed.replace(/^\s*\n/, "").trimEnd();
  if (!text) return false;
  host.warn("");
  if (text.startsWith("/")) {
    const problem = runSlash(text, host.slash);
    if (problem !== null) host.warn(problem);
    host.redraw();
    return problem === null;
  }
  host.history.add(typed);
  const { session } = host;
  if (session.spec === null) {
    // Nothing to send it to yet: the text stays in the input, and the picker asks again.
    host.warn("choose a model first, then Enter sends the message");
    host.pickModel();
    host.redraw();
    return false;
  }
  const attached = attachFiles(text, session.workspace, session.limits.max_result_chars);
  if (!attached.ok) {
    host.warn(attached.problem);
    host.redraw();
    return false;
  }
  if (attached.files.length) host.say(`attached: ${attached.files.map(sanitize).join(", ")}`);
  host.runs.submit(attached.message, text);
  return true;
}
