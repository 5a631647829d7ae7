import { z } from "zod";
import { defineTool } from "./tool.ts";
import { openTree, treeEntries } from "./tree/walk.ts";
import { compileGlob } from "./tree/glob.ts";

const MAX_FOUND = 200;

export const findFiles = defineTool({
  name: "find_files",
  description:
    "Find the workspace's files (not git-ignored) by glob: `*.test.ts` matches names at any depth, `src/**/*.ts` paths from the root. " +
    "Returns workspace-relative paths, sorted.",
  schema: z
    .object({
      pattern: z.string().min(1).max(500).describe("The glob, e.g. `*.md` or `src/**/index.ts`"),
      directory: z.string().max(1000).optional().describe("Folder to look in (default: the workspace root)"),
    })
    .strict(),
  needsApproval: false,
  async plan(args, { workspace }) {
    const start = openTree(workspace, args.directory);
    const matches = compileGlob(args.pattern, "pattern");
    return {
      target: start.folder.relative,
      async execute() {
        const found: string[] = [];
        for (const entry of treeEntries(workspace, start)) if (!entry.folder && matches(entry.path)) found.push(entry.path);
        found.sort();
        if (!found.length) return `No file matches ${JSON.stringify(args.pattern)}.`;
        const more = found.length - MAX_FOUND;
        return [...found.slice(0, MAX_FOUND), ...(more > 0 ? [`[${found.length} files in all, ${more} not shown: narrow the pattern or give a subfolder]`] : [])].join("\n");
      },
    };
  },
});
