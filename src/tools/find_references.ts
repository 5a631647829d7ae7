import { findReferences as usesOf } from "../map/repo-map.ts";
import { symbolTool } from "./map-files.ts";

/** As many as search_text shows. */
const MAX_REFERENCES = 50;

export const findReferences = symbolTool("find_references", "Where a name is used (definitions excluded): `path:line: text`.", async (workspace, files, name) => {
  const hits = await usesOf(files, name, workspace.root);
  if (!hits.length) return `No use of ${JSON.stringify(name)} in files the map parses.`;
  const shown = hits.slice(0, MAX_REFERENCES).map((hit) => `${hit.path}:${hit.line}: ${hit.text}`);
  if (hits.length > MAX_REFERENCES) shown.push(`[${hits.length} uses in all, ${hits.length - MAX_REFERENCES} not shown: search_text with a glob or subfolder narrows]`);
  return shown.join("\n");
});
