import { z } from "zod";
import { defineTool, Refusal, type Tool } from "./tool.ts";
import { numbered, readSmallText } from "./files.ts";
import { stillResolvesTo, writeUndoable } from "./write_file.ts";
import { syntaxProblem } from "./syntax.ts";
import type { Checks } from "./checks.ts";

const MAX_EDIT_BYTES = 2 * 1024 * 1024;

/** Lines of context shown around an edited region. */
const CONTEXT_LINES = 2;

/** edit_file, with the syntax checks the config adds for file types beyond TS, JS and JSON (`guarded` false: none at all). */
export function makeEditFile(editChecks: Checks = {}, guarded = true): Tool {
  return defineTool({
  name: "edit_file",
  description:
    "Replace one exact piece of text in a workspace file. `old` must occur exactly once in the file " +
    "(include surrounding lines to make it unique). The result must still parse, or the edit is refused and the file stays as it was. " +
    "Needs the user's approval.",
  schema: z
    .object({
      path: z.string().min(1).max(1000).describe("File path relative to the workspace root"),
      old: z.string().min(1).max(100_000).describe("The exact text to replace, whitespace included"),
      new: z.string().max(100_000).describe("The text to put in its place"),
    })
    .strict(),
  needsApproval: true,
  async plan(args, context) {
    const { workspace, signal } = context;
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
    const problem = guarded ? await syntaxProblem(file.relative, after, editChecks, signal) : null;
    if (problem) throw new Refusal(`The edit would leave ${file.relative} unparseable (${problem}); the file is unchanged, so fix the edit and try again.`);
    return {
      target: file.relative,
      change: { path: file.relative, before, after },
      async execute() {
        stillResolvesTo(workspace, args.path, file);
        // Approval can take a while: if the file changed meanwhile, the edit would undo that change.
        if (readSmallText(file, MAX_EDIT_BYTES) !== before) {
          throw new Refusal(`Argument \`path\`: \`${file.relative}\` changed while the edit waited for approval; read it again and redo the edit.`);
        }
        writeUndoable(context, "edit_file", file, after);
        const firstLine = before.slice(0, at).split("\n").length;
        const lastLine = firstLine + Math.max(0, args.new.split("\n").length - 1);
        const lines = after.split("\n");
        const from = Math.max(1, firstLine - CONTEXT_LINES);
        const to = Math.min(lines.length, lastLine + CONTEXT_LINES);
        const region = lines.slice(from - 1, to).map((text, index) => numbered(from + index, text));
        return `Edited ${file.relative}: lines ${firstLine}-${lastLine} now read (with ${CONTEXT_LINES} lines around):\n${region.join("\n")}`;
      },
    };
  },
  });
}
