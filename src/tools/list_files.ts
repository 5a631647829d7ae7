import { z } from "zod";
import { defineTool } from "./tool.ts";
import { openTree, treeEntries } from "./tree/walk.ts";

const MAX_ENTRIES = 300;

export const listFiles = defineTool({
  name: "list_files",
  description:
    "List the files and folders of the workspace (or of one folder in it) that git does not ignore, recursively, folders marked with a trailing /.",
  schema: z
    .object({
      directory: z.string().max(1000).optional().describe("Folder relative to the workspace root (default: the root)"),
    })
    .strict(),
  needsApproval: false,
  async plan(args, { workspace }) {
    const start = openTree(workspace, args.directory);
    const heading = start.folder.relative;
    return {
      target: heading,
      async execute() {
        const lines: string[] = [];
        let more = 0;
        for (const { depth, name, folder } of treeEntries(workspace, start)) {
          if (lines.length >= MAX_ENTRIES) {
            more++;
            continue;
          }
          lines.push(`${"  ".repeat(depth)}${name}${folder ? "/" : ""}`);
        }
        if (more) lines.push(`[… ${more} more entries not listed; list a subfolder]`);
        return lines.length ? `${heading}:\n${lines.join("\n")}` : `${heading}: empty`;
      },
    };
  },
});
