import { z } from "zod";
import { defineTool } from "./tool.ts";
import { readChunks, resolveFolder, walk } from "./files.ts";

const MAX_MATCHES = 50;
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_LINE_CHARS = 200;

export const searchText = defineTool({
  name: "search_text",
  description:
    "Find lines containing a piece of text (case-sensitive, not a regular expression) in the workspace's text files. " +
    "Returns path:line: text for each match.",
  schema: z
    .object({
      text: z.string().min(1).max(200).describe("The text to look for"),
      directory: z.string().max(1000).optional().describe("Folder to search, relative to the workspace root (default: the root)"),
    })
    .strict(),
  needsApproval: false,
  async plan(args, { workspace }) {
    const folder = resolveFolder(workspace, args.directory);
    return {
      target: folder.relative,
      async execute() {
        const matches: string[] = [];
        let more = 0;
        // A file reached through a link inside the workspace is the same file: searched once.
        const searched = new Set<string>();
        for (const { file } of walk(workspace, folder)) {
          if (!file.stats!.isFile() || file.stats!.size > MAX_FILE_BYTES || searched.has(file.real)) continue;
          searched.add(file.real);
          let line = 1;
          let rest = "";
          const scan = (text: string) => {
            if (!text.includes(args.text)) return;
            if (matches.length >= MAX_MATCHES) return void more++;
            const shown = text.length > MAX_LINE_CHARS ? text.slice(0, MAX_LINE_CHARS) + "…" : text;
            matches.push(`${file.relative}:${line}: ${shown.trim()}`);
          };
          const read = readChunks(file.real, MAX_FILE_BYTES, (piece) => {
            const lines = (rest + piece).split("\n");
            rest = lines.pop() ?? "";
            for (const text of lines) scan(text), line++;
            return true;
          });
          if (!read.binary) scan(rest);
        }
        if (more) matches.push(`[${matches.length + more} matches in all, ${more} not shown: narrow the search with longer text or a subfolder]`);
        return matches.length ? matches.join("\n") : `No line contains ${JSON.stringify(args.text)}.`;
      },
    };
  },
});
