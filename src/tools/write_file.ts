import { z } from "zod";
import { FILE_TEXT_ARGUMENT_CHARS, defineTool, Refusal } from "./tool.ts";
import { readTextFile, writePlannedText, type PlannedText } from "../files/file-write.ts";
import { withLineEndings } from "../files/text-edit.ts";

export const writeFile = defineTool({
  name: "write_file",
  description:
    "Create or replace a whole file in the workspace (needs the user's approval); to change part of a file, prefer edit_file. " +
    "An existing file keeps its line endings, byte-order mark and mode.",
  schema: z
    .object({
      path: z.string().min(1).max(1000).describe("File path relative to the workspace root"),
      content: z.string().max(1_000_000).describe("The complete new content of the file"),
    })
    .strict(),
  maxArgumentChars: FILE_TEXT_ARGUMENT_CHARS,
  needsApproval: true,
  async plan(args, context) {
    const file = context.workspace.resolve(args.path);
    if (file.stats && !file.stats.isFile()) throw new Refusal(`Argument \`path\`: \`${file.relative}\` exists and is not a regular file.`);
    const current = file.stats ? readTextFile(file) : null;
    const planned: PlannedText = { file, path: args.path, argument: "path", current, after: current ? withLineEndings(args.content, current.facts.eol) : args.content };
    return {
      target: file.relative,
      change: { path: file.relative, before: current?.text ?? null, after: planned.after },
      async execute() {
        writePlannedText(context, "write_file", planned);
        return `${current ? "Replaced" : "Created"} ${file.relative} (${args.content.length} characters).`;
      },
    };
  },
});
