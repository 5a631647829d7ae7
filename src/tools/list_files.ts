import { z } from "zod";
import { defineTool } from "./tool.ts";
import { resolveFolder, walk } from "./files.ts";

const MAX_ENTRIES = 300;

export const listFiles = defineTool({
  name: "list_files",
  description:
    "List the files and folders of the workspace (or of one folder in it), recursively, folders marked with a trailing /.",
  schema: z
    .object({
      directory: z.string().max(1000).optional().describe("Folder relative to the workspace root (default: the root)"),
    })
    .strict(),
  needsApproval: false,
  async plan(args, { workspace }) {
    const folder = resolveFolder(workspace, args.directory);
    return {
      target: folder.relative,
      async execute() {
        const lines: string[] = [];
        let more = 0;
        for (const { file, depth, name } of walk(workspace, folder)) {
          if (lines.length >= MAX_ENTRIES) {
            more++;
            continue;
          }
          lines.push(`${"  ".repeat(depth)}${name}${file.stats!.isDirectory() ? "/" : ""}`);
        }
        if (more) lines.push(`[… ${more} more entries not listed; list a subfolder]`);
        return lines.length ? `${folder.relative}:\n${lines.join("\n")}` : `${folder.relative}: empty`;
      },
    };
  },
});
