import { z } from "zod";
import { FILE_TEXT_ARGUMENT_CHARS, defineTool, Refusal, type Tool } from "./tool.ts";
import { numbered } from "../files/reading.ts";
import { readTextFile, writePlannedText, type PlannedText } from "../files/file-write.ts";
import { syntaxProblem } from "./syntax.ts";
import { applyEdits, type EditRequest, type Span } from "../files/text-edit.ts";
import type { Checks } from "./checks.ts";

/** Lines of context shown around an edited region. */
const CONTEXT_LINES = 2;

/** Regions of the edited file the result shows; the rest are counted. */
const MAX_REGIONS = 10;

const MAX_EDITS = 50;

// Described once, at the top level: the model reads every word of the tools block on every request.
const oldText = z.string().min(1).max(100_000);
const newText = z.string().max(100_000);

/**
 * edit_file, with the syntax checks the config adds for file types beyond TS, JS and JSON
 * (`guarded` false: none at all); `loose` false: `old` must occur exactly, whitespace included.
 */
export function makeEditFile(editChecks: Checks = {}, guarded = true, loose = true): Tool {
  return defineTool({
    name: "edit_file",
    description:
      "Replace text in a workspace file: `old` must occur exactly once (add surrounding lines) unless `replace_all`. " +
      "Several changes: `edits: [{old, new, replace_all?}]`, applied in order, all or none. " +
      "The result must still parse. Needs the user's approval.",
    schema: z
      .object({
        path: z.string().min(1).max(1000).describe("File path relative to the workspace root"),
        old: oldText.optional().describe("The exact text to replace, whitespace included"),
        new: newText.optional().describe("The text to put in its place"),
        replace_all: z.boolean().optional().describe("Replace every occurrence"),
        edits: z
          .array(z.object({ old: oldText, new: newText, replace_all: z.boolean().optional() }).strict())
          .min(1)
          .max(MAX_EDITS)
          .optional(),
      })
      .strict()
      .superRefine((args, context) => {
        if (args.edits) {
          if (args.old !== undefined || args.new !== undefined || args.replace_all !== undefined) {
            context.addIssue({ code: "custom", path: ["edits"], message: "give either `old` and `new`, or `edits`, not both" });
          }
          return;
        }
        if (args.old === undefined) context.addIssue({ code: "custom", path: ["old"], message: "required" });
        else if (args.new === undefined) context.addIssue({ code: "custom", path: ["new"], message: "required" });
      }),
    maxArgumentChars: FILE_TEXT_ARGUMENT_CHARS,
    needsApproval: true,
    async plan(args, context) {
      const file = context.workspace.resolve(args.path);
      const current = readTextFile(file);
      const single = !args.edits;
      const edits: EditRequest[] = args.edits ?? [{ old: args.old!, new: args.new!, replace_all: args.replace_all }];
      const outcome = applyEdits(current.text, edits, loose);
      if (!outcome.ok) {
        const which = single ? "`old`" : `\`edits[${outcome.index}].old\``;
        const nothing = single || outcome.index === 0 ? "" : " (no edit was made, the ones before it included)";
        const { what, detail, advice } = outcome.problem;
        throw new Refusal(`Argument ${which} ${what} in ${file.relative}${detail}${nothing}; ${advice}.`);
      }
      const after = outcome.text;
      const problem = guarded ? await syntaxProblem(file.relative, after, editChecks, context.signal, current.text) : null;
      if (problem) throw new Refusal(`The edit would leave ${file.relative} unparseable (${problem}); the file is unchanged, so fix the edit and try again.`);
      const planned: PlannedText = { file, path: args.path, argument: "path", current, after };
      return {
        target: file.relative,
        change: { path: file.relative, before: current.text, after },
        async execute() {
          writePlannedText(context, "edit_file", planned);
          return `Edited ${file.relative}${howMatched(outcome.loose, single)}: ${shownRegions(after, outcome.spans)}`;
        },
      };
    },
  });
}

/** Says which edits did not match exactly, and what was set aside to match them. */
function howMatched(loose: Array<string | null>, single: boolean): string {
  if (single) return loose[0] ? ` (\`old\` ${loose[0]})` : "";
  const notes = loose.flatMap((how, index) => (how ? [`edits[${index}].old ${how}`] : []));
  return ` (${loose.length} edits${notes.length ? `; ${notes.join("; ")}` : ""})`;
}

/** The edited lines, numbered like read_file, with a few lines around each stretch. */
function shownRegions(text: string, spans: Span[]): string {
  const lines = text.split("\n");
  const ranges = spans
    .map((span) => {
      const first = lineAt(text, span.start);
      return [first, Math.max(first, lineAt(text, Math.max(span.start, span.end - 1)))] as const;
    })
    .sort((a, b) => a[0] - b[0]);
  const names = ranges.map(([first, last]) => `${first}-${last}`);
  const shown: Array<[number, number]> = [];
  for (const [first, last] of ranges.slice(0, MAX_REGIONS)) {
    const from = Math.max(1, first - CONTEXT_LINES);
    const to = Math.min(lines.length, last + CONTEXT_LINES);
    const previous = shown.at(-1);
    if (previous && from <= previous[1] + 1) previous[1] = Math.max(previous[1], to);
    else shown.push([from, to]);
  }
  const more = ranges.length > MAX_REGIONS ? `\n[… ${ranges.length - MAX_REGIONS} more edited places not shown]` : "";
  const regions = shown.map(([from, to]) => lines.slice(from - 1, to).map((line, index) => numbered(from + index, line.replace(/\r$/, ""))).join("\n"));
  return `lines ${names.join(", ")} now read (with ${CONTEXT_LINES} lines around):\n${regions.join("\n     …\n")}${more}`;
}

/** The 1-based line that holds offset `at`. */
function lineAt(text: string, at: number): number {
  return text.slice(0, at).split("\n").length;
}
