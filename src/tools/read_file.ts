import { z } from "zod";
import { defineTool, Refusal } from "./tool.ts";
import { numbered, readChunks, requireRegularFile } from "../files/reading.ts";

/** A window of this many lines unless the model asks for another size. */
const DEFAULT_LINES = 100;

/** How far a read scans to count a file's lines; past this the header says "more than". */
const SCAN_BYTES = 8 * 1024 * 1024;
/** How much text of the requested window is kept in memory, however long its lines. */
const WINDOW_CHARS = 256 * 1024;

export const readFile = defineTool({
  name: "read_file",
  description:
    "Read a text file of the workspace. Returns numbered lines under a header [path: lines a-b of n; x above, y below]. " +
    "Use start (1-based) and max_lines (1-500, default 100) to page through long files.",
  schema: z
    .object({
      path: z.string().min(1).max(1000).describe("File path relative to the workspace root"),
      start: z.number().int().min(1).optional().describe("First line to show, 1-based (default 1)"),
      max_lines: z.number().int().min(1).max(500).optional().describe("How many lines to show (default 100)"),
    })
    .strict(),
  needsApproval: false,
  async plan(args, { workspace }) {
    const file = workspace.resolve(args.path);
    requireRegularFile(file);
    return {
      target: file.relative,
      async execute() {
        const first = args.start ?? 1;
        const last = first + (args.max_lines ?? DEFAULT_LINES) - 1;
        const shown: string[] = [];
        let line = 1;
        let partial = "";
        let windowChars = 0;
        const take = (text: string) => {
          if (line >= first && line <= last && windowChars < WINDOW_CHARS) {
            const room = WINDOW_CHARS - windowChars;
            partial += text.slice(0, room);
            windowChars += Math.min(text.length, room);
          }
        };
        const read = readChunks(file.real, SCAN_BYTES, (piece) => {
          let from = 0;
          for (let at = piece.indexOf("\n"); at !== -1; at = piece.indexOf("\n", from)) {
            take(piece.slice(from, at));
            if (line >= first && line <= last) shown.push(numbered(line, partial));
            partial = "";
            line++;
            from = at + 1;
          }
          take(piece.slice(from));
          return true;
        });
        if (read.binary) throw new Refusal(`Argument \`path\`: \`${file.relative}\` is a binary file; read_file shows text only.`);
        const trailing = partial !== "" || (read.complete && line === 1 && file.stats!.size > 0);
        if (trailing && line >= first && line <= last) shown.push(numbered(line, partial));
        const total = trailing ? line : line - 1;
        const of = read.complete ? `${total}` : `more than ${total}`;
        if (shown.length === 0) {
          return `[${file.relative}: ${of} lines; start ${first} is past the end]`;
        }
        const end = first + shown.length - 1;
        const below = read.complete ? `${total - end}` : `more than ${total - end}`;
        return `[${file.relative}: lines ${first}-${end} of ${of}; ${first - 1} above, ${below} below]\n${shown.join("\n")}`;
      },
    };
  },
});
