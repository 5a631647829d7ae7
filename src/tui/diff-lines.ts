import { createTwoFilesPatch } from "diff";
import type { FileChange } from "../tools/tool.ts";

export type DiffKind = "add" | "remove" | "hunk" | "header" | "context";

/** A change as unified-diff lines (from the `diff` library), each tagged with how to colour it. */
export function diffLines(change: FileChange, maxLines = 2000): Array<{ kind: DiffKind; text: string }> {
  const patch = createTwoFilesPatch(
    change.from ?? change.path,
    change.path,
    change.before ?? "",
    change.after ?? "",
    change.before === null ? "(new file)" : "now",
    change.after === null ? "(deleted)" : "after",
    { context: 3 },
  );
  // Drop the "Index:" and "====" banner lines (no "Index:" when the names differ, as in a move)
  // and the trailing empty line; keep the rest as it is.
  const all = patch.split("\n");
  const lines = all
    .slice(all.findIndex((line) => line.startsWith("--- ")))
    .filter((line) => line !== "" && line !== "\\ No newline at end of file");
  const kinds = lines.map((text) => ({
    kind: (text.startsWith("+++") || text.startsWith("---") ? "header" : text.startsWith("+") ? "add" : text.startsWith("-") ? "remove" : text.startsWith("@@") ? "hunk" : "context") as DiffKind,
    text,
  }));
  if (kinds.length <= maxLines) return kinds;
  return [...kinds.slice(0, maxLines), { kind: "header", text: `[… ${kinds.length - maxLines} more diff lines not shown]` }];
}
