/**
 * `@path` in a message: the file's text goes with it, clipped as a tool result would be. Paths
 * go through the workspace's own confinement (src/files/workspace.ts), as a tool's argument
 * does: nothing outside the workspace, nothing off limits, links followed to where they lead.
 */
import { readFileSync } from "node:fs";
import { clip } from "../../core/clip.ts";
import { Refusal } from "../../tools/tool.ts";
import type { Workspace } from "../../files/workspace.ts";

export type Attached =
  /** The message to send: as typed, then each named file's text. */
  | { ok: true; message: string; files: string[] }
  /** Nothing is sent: why, for the person (the message stays in the input). */
  | { ok: false; problem: string };

/** `@` words: at the start or after a space, up to the next space; a trailing comma or full stop is prose. */
const AT_PATH = /(?<=^|\s)@([^\s]+?)[.,;:!?)]*(?=\s|$)/g;

/**
 * The message with the text of every file it names. An `@` word that names nothing in the
 * workspace (`@types/node`, a handle) stays plain text; one that names a place it may not
 * read stops the message, so the person never believes a file went along that did not.
 */
export function attachFiles(message: string, workspace: Workspace, maxChars: number): Attached {
  const files: string[] = [];
  const blocks: string[] = [];
  for (const match of message.matchAll(AT_PATH)) {
    const named = match[1]!;
    let resolved;
    try {
      resolved = workspace.resolve(named, `@${named}`);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      return { ok: false, problem: `@${named} is not attached: ${refusalReason(error.message)}; remove the @ to send it as plain text` };
    }
    if (!resolved.stats?.isFile() || files.includes(resolved.relative)) continue;
    let text: string;
    try {
      text = readFileSync(resolved.real, "utf8");
    } catch (error) {
      return { ok: false, problem: `@${named} is not attached: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
    }
    if (text.includes("\0")) return { ok: false, problem: `@${named} is not attached: it is a binary file; name a text file` };
    files.push(resolved.relative);
    blocks.push(`[file ${resolved.relative}, attached by the person]\n${clip(text, maxChars)}`);
  }
  return { ok: true, message: blocks.length ? `${message}\n\n${blocks.join("\n\n")}` : message, files };
}

/** A tool refusal says "Argument `@x` points outside…"; the person is told the part after the name. */
function refusalReason(refusal: string): string {
  return refusal.replace(/^Argument `[^`]*` /, "it ").replace(/\.$/, "").replace(/; use .*$/, "");
}

/** The marker that opens an attached file's block in a message. */
const BLOCK = /\n\n\[file ([^\]\n]+), attached by the person\]\n/;

/** A task as the transcript shows it: what was typed, the attached files named, not their text. */
export function shownTask(task: string): string {
  const first = task.search(BLOCK);
  if (first === -1) return task;
  const names = [...task.slice(first).matchAll(new RegExp(BLOCK.source, "g"))].map((match) => match[1]);
  return `${task.slice(0, first)} [attached: ${names.join(", ")}]`;
}
