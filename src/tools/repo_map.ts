import { z } from "zod";
import { defineTool } from "./tool.ts";
import { repoMap } from "../map/repo-map.ts";
import { mapFiles, type TouchedFiles } from "./map-files.ts";

/** The map tool, with its token budget and the files the session has read or edited. */
export function makeRepoMap(tokens: number, touched?: TouchedFiles) {
  return defineTool({
    name: "repo_map",
    description: "Map of the code: each file's main definitions (`LINE: signature`), the most used first.",
    schema: z
      .object({
        path: z.string().max(1000).optional().describe("Only this folder or file"),
        focus: z.array(z.string().min(1).max(200)).max(20).optional().describe("Files or symbols to weight"),
      })
      .strict(),
    needsApproval: false,
    async plan(args, { workspace }) {
      // Workspace-relative with forward slashes, as the map's paths are (Windows included).
      const under = args.path === undefined ? undefined : workspace.resolve(args.path, "path").relative.split(/[\\/]/).join("/");
      return {
        target: under ?? ".",
        execute: () => repoMap(mapFiles(workspace), { cacheRoot: workspace.root, path: under === "." ? undefined : under, focus: args.focus, touched: touched?.list(), tokens }),
      };
    },
  });
}
