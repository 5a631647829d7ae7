import { z } from "zod";
import { readFileSync } from "node:fs";
import { defineTool, Refusal } from "./tool.ts";
import { moveJournaled, requireOwnRegularFile, shownText, type PlannedMove } from "../files/file-write.ts";
import { digest } from "../files/journal.ts";

export const moveFile = defineTool({
  name: "move_file",
  description:
    "Move or rename one file; an existing `to` is refused unless `overwrite`. Needs the user's approval.",
  schema: z
    .object({
      from: z.string().min(1).max(1000).describe("File path relative to the workspace root"),
      to: z.string().min(1).max(1000).describe("New path relative to the workspace root"),
      overwrite: z.boolean().optional(),
    })
    .strict(),
  needsApproval: true,
  async plan(args, context) {
    const { workspace } = context;
    const from = workspace.resolve(args.from, "from");
    requireOwnRegularFile(workspace, args.from, from, "from");
    const to = workspace.resolve(args.to, "to");
    if (to.real === from.real) throw new Refusal(`Argument \`to\`: \`${to.relative}\` is where the file already is; give a new path.`);
    if (to.stats && !to.stats.isFile()) throw new Refusal(`Argument \`to\`: \`${to.relative}\` exists and is not a regular file; give a path that is free.`);
    if (to.stats && !args.overwrite) throw new Refusal(`Argument \`to\`: \`${to.relative}\` already exists; pass overwrite: true to replace it, or choose another path.`);
    if (to.stats) requireOwnRegularFile(workspace, args.to, to, "to");
    const bytes = readFileSync(from.real);
    const replaced = to.stats ? readFileSync(to.real) : null;
    const move: PlannedMove = { from, to, args, fromSha256: digest(bytes), toSha256: replaced ? digest(replaced) : null };
    const shown = shownText(bytes);
    return {
      target: `${from.relative} → ${to.relative}`,
      paths: [from.relative, to.relative],
      // The new path as it will be, against what it holds now (nothing, or the file it replaces).
      change: { path: to.relative, from: from.relative, before: replaced ? shownText(replaced) : null, after: shown },
      async execute() {
        moveJournaled(context, move);
        return `Moved ${from.relative} to ${to.relative}${replaced ? ", replacing the file that was there" : ""}; the user can move it back with glassbox undo.`;
      },
    };
  },
});
