import { createTwoFilesPatch } from "diff";
import type { FileChange } from "../tools/tool.ts";

export type DiffKind = "move" | "add" | "remove" | "hunk" | "header" | "context";
export type DiffLine = { kind: DiffKind; text: string };

/**
 * A change as the approval shows it: unified-diff lines (from the `diff` library), each tagged
 * with how to colour it. A move says first what is renamed to what; its content is the same on
 * both sides, so only a file it overwrites has a diff (that file's text against the moved one).
 */
export function diffLines(change: FileChange, maxLines = 2000): DiffLine[] {
  const lines = change.from === undefined ? changeLines(change) : moveLines({ ...change, from: change.from });
  if (lines.length <= maxLines) return lines;
  return [...lines.slice(0, maxLines), { kind: "header", text: `[… ${lines.length - maxLines} more diff lines not shown]` }];
}

function moveLines(move: FileChange & { from: string }): DiffLine[] {
  if (move.before === null) return [{ kind: "move", text: `${move.from} → ${move.path}` }, { kind: "header", text: "(the content moves unchanged)" }];
  return [{ kind: "move", text: `${move.from} → ${move.path} (overwrites ${move.path})` }, ...changeLines({ path: move.path, before: move.before, after: move.after })];
}

function changeLines(change: FileChange): DiffLine[] {
  const patch = createTwoFilesPatch(
    change.path,
    change.path,
    change.before ?? "",
    change.after ?? "",
    change.before === null ? "(new file)" : "now",
    change.after === null ? "(deleted)" : "after",
    { context: 3 },
  );
  // Drop the "Index:" and "====" banner lines and the trailing empty line; keep the rest as it is.
  const all = patch.split("\n");
  return all
    .slice(all.findIndex((line) => line.startsWith("--- ")))
    .filter((line) => line !== "" && line !== "\\ No newline at end of file")
    .map((text) => ({ kind: kindOf(text), text }));
}

function kindOf(text: string): DiffKind {
  if (text.startsWith("+++") || text.startsWith("---")) return "header";
  if (text.startsWith("+")) return "add";
  if (text.startsWith("-")) return "remove";
  return text.startsWith("@@") ? "hunk" : "context";
}
