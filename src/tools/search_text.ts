import { z } from "zod";
import { defineTool } from "./tool.ts";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { openTree, treeEntries } from "./tree/walk.ts";
import { compileGlob } from "./tree/glob.ts";
import { compilePattern } from "./tree/pattern.ts";

const MAX_MATCHES = 50;
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const MAX_LINE_CHARS = 200;
const MAX_CONTEXT_LINES = 5;

export const searchText = defineTool({
  name: "search_text",
  description:
    "Search the workspace's text files (not git-ignored) for lines matching a JavaScript regular expression, or text with literal: true. " +
    "Returns path:line: text per match, path-line- text for context.",
  schema: z
    .object({
      pattern: z.string().min(1).max(1000).optional().describe("Regular expression to look for, in JavaScript syntax (or text, with literal: true)"),
      text: z.string().min(1).max(200).optional().describe("Older form: text to look for, literally (use pattern instead)"),
      directory: z.string().max(1000).optional().describe("Folder to search (default: the workspace root)"),
      glob: z.string().min(1).max(500).optional().describe("Only files matching this glob: `*.ts` matches names at any depth, `src/**/*.ts` paths from the root"),
      literal: z.boolean().optional().describe("Take pattern as plain text, not a regular expression (default false)"),
      ignore_case: z.boolean().optional().describe("Match regardless of case (default false)"),
      context_lines: z.number().int().min(0).max(MAX_CONTEXT_LINES).optional().describe("Lines of context before and after each match, 0-5 (default 0)"),
    })
    .strict(),
  needsApproval: false,
  async plan(args, { workspace, signal }) {
    const start = openTree(workspace, args.directory);
    const pattern = compilePattern(args);
    const inGlob = args.glob === undefined ? () => true : compileGlob(args.glob, "glob");
    const context = args.context_lines ?? 0;
    return {
      target: start.folder.relative,
      async execute() {
        const shown: string[] = [];
        let matches = 0;
        const tooLarge: string[] = [];
        // A file reached through a link inside the workspace is the same file: searched once.
        const searched = new Set<string>();
        for (const entry of treeEntries(workspace, start)) {
          if (signal.aborted) return `${shown.join("\n")}\n[search stopped: the run was interrupted]`.trim();
          if (entry.folder || !inGlob(entry.path) || searched.has(entry.real)) continue;
          searched.add(entry.real);
          const text = readSearchable(entry.real);
          if (text === TOO_LARGE) tooLarge.push(entry.path);
          if (text === TOO_LARGE || text === BINARY) continue;
          const found = pattern.matchingLines(text);
          if (!found.length) continue;
          const room = MAX_MATCHES - matches;
          matches += found.length;
          if (room > 0) shown.push(...excerpt(entry.path, text, found, room, context, shown.length > 0));
        }
        const notes: string[] = [];
        if (matches > MAX_MATCHES) notes.push(`[${matches} matches in all, ${matches - MAX_MATCHES} not shown: narrow the search with a longer pattern, a glob or a subfolder]`);
        if (tooLarge.length) notes.push(`[not searched, larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB: ${tooLarge.slice(0, 3).join(", ")}${tooLarge.length > 3 ? ` and ${tooLarge.length - 3} more` : ""}]`);
        if (!matches) return [`No line matches ${JSON.stringify(args.pattern ?? args.text)}${args.glob ? ` in files matching ${JSON.stringify(args.glob)}` : ""}.`, ...notes].join("\n");
        return [...shown, ...notes].join("\n");
      },
    };
  },
});

const TOO_LARGE = Symbol("too large");
const BINARY = Symbol("binary");

/**
 * A file's text in one read (a search reads every file whole, and a read in pieces cost it five
 * times more), or why it is not searched: a NUL byte marks a binary file, as for grep.
 */
function readSearchable(real: string): string | typeof TOO_LARGE | typeof BINARY {
  const fd = openSync(real, "r");
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_FILE_BYTES) return TOO_LARGE;
    const bytes = Buffer.allocUnsafe(size);
    let got = 0;
    for (let read = -1; got < size && read !== 0; got += read) read = readSync(fd, bytes, got, size - got, null);
    const text = bytes.subarray(0, got);
    return text.includes(0) ? BINARY : text.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * The first `room` matching lines of one file as `path:line: text`, with `context` lines around
 * each as `path-line- text`; `--` separates runs of lines that do not touch, as grep does.
 */
function excerpt(path: string, text: string, found: number[], room: number, context: number, afterOthers: boolean): string[] {
  const lines = text.split("\n");
  // After a last newline there is no line.
  const lastLine = lines.length - (text.endsWith("\n") ? 2 : 1);
  const out: string[] = [];
  const matching = new Set(found);
  let last = -1;
  for (const index of found.slice(0, room)) {
    const from = Math.max(index - context, last + 1);
    const to = Math.min(index + context, lastLine);
    if (context > 0 && (last >= 0 ? from > last + 1 : afterOthers)) out.push("--");
    for (let at = from; at <= to; at++) out.push(`${path}${matching.has(at) ? ":" : "-"}${at + 1}${matching.has(at) ? ":" : "-"} ${shorten(lines[at]!)}`);
    last = Math.max(last, to);
  }
  return out;
}

function shorten(line: string): string {
  const text = line.trim();
  return text.length > MAX_LINE_CHARS ? text.slice(0, MAX_LINE_CHARS) + "…" : text;
}
