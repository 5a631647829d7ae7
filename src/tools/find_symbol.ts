import { findSymbol as definitionsOf } from "../map/repo-map.ts";
import { symbolTool } from "./map-files.ts";

export const findSymbol = symbolTool("find_symbol", "Where a name is defined: `path:line: signature`.", async (workspace, files, name) => {
  const hits = await definitionsOf(files, name, workspace.root);
  if (!hits.length) return `No definition of ${JSON.stringify(name)} in files the map parses.`;
  return hits.map((hit) => `${hit.path}:${hit.line}: ${hit.text}`).join("\n");
});
