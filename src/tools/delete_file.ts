import { z } from "zod";
import { readFileSync } from "node:fs";
import { defineTool } from "./tool.ts";
import { deleteJournaled, requireOwnRegularFile, shownText } from "../files/file-write.ts";
import { digest } from "../files/journal.ts";

export const deleteFile = defineTool({
  name: "delete_file",
  description: "Delete one file. Needs the user's approval.",
  schema: z
    .object({
      path: z.string().min(1).max(1000).describe("File path relative to the workspace root"),
    })
    .strict(),
  needsApproval: true,
  async plan(args, context) {
    const file = context.workspace.resolve(args.path);
    requireOwnRegularFile(context.workspace, args.path, file, "path");
    const bytes = readFileSync(file.real);
    return {
      target: file.relative,
      change: { path: file.relative, before: shownText(bytes), after: null },
      async execute() {
        deleteJournaled(context, args.path, file, digest(bytes));
        return `Deleted ${file.relative} (${bytes.length} bytes); the user can bring it back with glassbox undo.`;
      },
    };
  },
});
