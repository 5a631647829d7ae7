import type { CliArgs } from "./args.ts";
import { workspaceRoot } from "../session/workspace-root.ts";
import { loadConfig } from "../session/config.ts";
import { Workspace } from "../files/workspace.ts";
import { windowOf } from "../model/options.ts";
import { mapTokens } from "../map/map-config.ts";
import { repoMap } from "../map/repo-map.ts";
import { mapFiles } from "../tools/map-files.ts";

/**
 * `glassbox map [PATH]`: prints what `repo_map` would return the model, with the same budget
 * (--tokens, else the config's, else the window's share) and the same cache.
 */
export async function printMap(args: CliArgs, out: (text: string) => void = (text) => console.log(text)): Promise<number> {
  const workspace = new Workspace(workspaceRoot(args.workspace));
  const { config } = loadConfig(args.config, workspace.root);
  const under = args.task === null ? undefined : workspace.resolve(args.task, "PATH").relative.split(/[\\/]/).join("/");
  const tokens = args.mapTokens ?? mapTokens(config.repo_map, windowOf(config.model_options));
  out(await repoMap(mapFiles(workspace), { cacheRoot: workspace.root, path: under === "." ? undefined : under, focus: args.focus, tokens }));
  return 0;
}
