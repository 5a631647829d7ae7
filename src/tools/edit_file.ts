import { z } from "zod";
import { defineTool, Refusal } from "./tool.ts";
import { readSmallText } from "./files.ts";
import { writeWhole } from "./write_file.ts";

const MAX_EDIT_BYTES = 2 * 1024 * 1024;

export const editFile = defineTool({
  name: "edit_file",
  description:
    "Replace one exact piece of text in a workspace file. `old` must occur exactly once in the file " +
    "(include surrounding lines to make it unique). Needs the user's approval.",
  schema: z
    .object({
      path: z.string().min(1).max(1000).describe("File path relative to the workspace root"),
      old: z.string().min(1).max(100_000).describe("The exact text to replace, whitespace included"),
      new: z.string().max(100_000).describe("The text to put in its place"),
    })
    .strict(),
  needsApproval: true,
  async plan(args, { workspace }) {
    const file = workspace.resolve(args.path);
    const before = readSmallText(file, MAX_EDIT_BYTES);
    const count = before.split(args.old).length - 1;
    if (count !== 1) {
      throw new Refusal(
        count === 0
          ? `Argument \`old\` does not occur in ${file.relative}; read the file and copy the text exactly.`
          : `Argument \`old\` occurs ${count} times in ${file.relative}; include more surrounding lines so it occurs exactly once.`,
      );
    }
    const at = before.indexOf(args.old);
    const after = before.slice(0, at) + args.new + before.slice(at + args.old.length);
    return {
      target: file.relative,
      change: { path: file.relative, before, after },
      async execute() {
        // Approval can take a while: if the file changed meanwhile, the edit would undo that change.
        if (readSmallText(workspace.resolve(args.path), MAX_EDIT_BYTES) !== before) {
          throw new Refusal(`Argument \`path\`: \`${file.relative}\` changed while the edit waited for approval; read it again and redo the edit.`);
        }
        writeWhole(file, after);
        const firstLine = before.slice(0, at).split("\n").length;
        const lastLine = firstLine + Math.max(0, args.new.split("\n").length - 1);
        return `Edited ${file.relative}: lines ${firstLine}-${lastLine} now read:\n${args.new}`;
      },
    };
  },
});
