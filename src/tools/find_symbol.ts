import { findSymbol as definitionsOf } from "../map/repo-map.ts";
import { symbolTool } from "./map-files.ts";

/** As many as search_text shows: a generic name (`get`, `init`) is defined in hundreds of places. */
const MAX_DEFINITIONS = 50;

export const findSymbol = symbolTool("find_symbol", "Where a name is defined: `path:line: signature`.", async (workspace, files, name) => {
  const hits = await definitionsOf(files, name, workspace.root);
  if (!hits.length) return `No definition of ${JSON.stringify(name)} in files the map parses.`;
  const shown = hits.slice(0, MAX_DEFINITIONS).map((hit) => `${hit.path}:${hit.line}: ${hit.text}`);
  if (hits.length > MAX_DEFINITIONS) shown.push(`[${hits.length} definitions in all, ${hits.length - MAX_DEFINITIONS} not shown: repo_map with a path narrows]`);
  return shown.join("\n");
});
