import { z } from "zod";
import { defineTool, type Tool } from "./tool.ts";
import type { Workspace } from "../files/workspace.ts";
import type { MapFile } from "../map/repo-map.ts";
import { openTree, treeEntries } from "./tree/walk.ts";

/** The files the map tools look at: those the tree tools see (same walker, same ignore rules), each real file once. */
export function mapFiles(workspace: Workspace): MapFile[] {
  const files: MapFile[] = [];
  const seen = new Set<string>();
  for (const entry of treeEntries(workspace, openTree(workspace, undefined))) {
    if (entry.folder || seen.has(entry.real)) continue;
    seen.add(entry.real);
    files.push({ path: entry.path, real: entry.real });
  }
  return files;
}

/** The paths a session's read and edit tools have touched, most recent last: the map leans toward them. */
export class TouchedFiles {
  private readonly paths = new Set<string>();
  add(path: string | undefined): void {
    if (!path || path === ".") return;
    this.paths.delete(path);
    this.paths.add(path);
  }
  list(): string[] {
    return [...this.paths];
  }
}

/** The same tool, noting the path of each call it plans (read_file, edit_file, write_file) as touched. */
export function touching<Args>(tool: Tool<Args>, touched: TouchedFiles): Tool<Args> {
  return {
    ...tool,
    async plan(args, context) {
      const plan = await tool.plan(args, context);
      touched.add(plan.target);
      return plan;
    },
  };
}

/** A look-up by one exact name over the map's files (find_symbol, find_references): the shape both share. */
export function symbolTool(name: string, description: string, answer: (workspace: Workspace, files: MapFile[], symbol: string) => Promise<string>): Tool<{ name: string }> {
  return defineTool({
    name,
    description,
    schema: z.object({ name: z.string().min(1).max(200).describe("Exact name") }).strict(),
    needsApproval: false,
    async plan(args, { workspace }) {
      return { target: ".", execute: () => answer(workspace, mapFiles(workspace), args.name) };
    },
  });
}
