// What the map tools and `glassbox map` ask of the map: the ranked map cut to a budget, a name's
// definitions, a name's uses. The caller walks the workspace (the tree tools' walker) and hands
// the files in; this folder never looks at the tree tools.
import { readFileSync } from "node:fs";
import { buildIndex, readRendered, writeRendered, type CodeIndex, type MapFile } from "./code-index.ts";
import { rankDefinitions } from "./rank.ts";
import { renderMap } from "./render.ts";

export type { MapFile } from "./code-index.ts";

export interface MapRequest {
  /** The workspace root, where `.glassbox/map/` keeps the cache; absent: no cache. */
  cacheRoot?: string;
  /** Only definitions in files under this workspace-relative folder or file ("" or absent: all). */
  path?: string;
  /** File paths or symbol names to weight. */
  focus?: string[];
  /** Files the run has read or edited: weighted like focus files. */
  touched?: Iterable<string>;
  tokens: number;
}

/** The map as the model sees it, or a sentence when there is nothing to map. */
export async function repoMap(files: MapFile[], request: MapRequest): Promise<string> {
  const index = await buildIndex(files, { cacheRoot: request.cacheRoot });
  const touched = [...(request.touched ?? [])];
  const key = JSON.stringify([index.fingerprint, request.path ?? "", request.focus ?? [], touched, request.tokens]);
  const saved = request.cacheRoot ? readRendered(request.cacheRoot, key) : undefined;
  if (saved !== undefined) return saved;
  const map = rankedMap(index, request, touched);
  if (request.cacheRoot) writeRendered(request.cacheRoot, key, map);
  return map;
}

function rankedMap(index: CodeIndex, request: MapRequest, touched: string[]): string {
  const focusFiles = new Set(touched);
  const focusNames = new Set<string>();
  // Files named in `focus` come first in the map; the walk also leans toward what they use.
  const named = new Set<string>();
  for (const focus of request.focus ?? []) {
    const asPath = focus.replace(/^\.\//, "");
    const matching = [...index.files.keys()].filter((path) => path === asPath || path.endsWith(`/${asPath}`));
    if (matching.length) for (const path of matching) focusFiles.add(path), named.add(path);
    else focusNames.add(focus);
  }
  for (const [path, tags] of index.files) if (tags.definitions.some((definition) => focusNames.has(definition.name))) focusFiles.add(path);
  const under = (request.path ?? "").replace(/^\.\/?/, "").replace(/\/$/, "");
  const ranked = rankDefinitions(index, { focusFiles, focusNames }).filter((definition) => !under || definition.path === under || definition.path.startsWith(`${under}/`));
  if (named.size) ranked.sort((a, b) => Number(named.has(b.path)) - Number(named.has(a.path)));
  const map = renderMap(ranked, request.tokens);
  return map || `No definitions found${under ? ` under \`${under}\`` : ""} in files the map parses.`;
}

export interface SymbolHit {
  path: string;
  line: number;
  text: string;
}

/** Every definition named exactly `name`: its path, line and signature. */
export async function findSymbol(files: MapFile[], name: string, cacheRoot?: string): Promise<SymbolHit[]> {
  const index = await buildIndex(files, { cacheRoot });
  const hits: SymbolHit[] = [];
  for (const [path, tags] of index.files) for (const definition of tags.definitions) if (definition.name === name) hits.push({ path, line: definition.line, text: definition.signature });
  return hits;
}

/** Every line that uses `name` (definitions excluded), with the line's text, by path then line. */
export async function findReferences(files: MapFile[], name: string, cacheRoot?: string): Promise<SymbolHit[]> {
  const index: CodeIndex = await buildIndex(files, { cacheRoot });
  const real = new Map(files.map((file) => [file.path, file.real]));
  const hits: SymbolHit[] = [];
  for (const [path, tags] of index.files) {
    const lines = Object.hasOwn(tags.references, name) ? tags.references[name]! : [];
    if (!lines.length) continue;
    let text: string[] = [];
    try {
      text = readFileSync(real.get(path)!, "utf8").split("\n");
    } catch {
      // Gone since it was indexed: its lines are shown without their text.
    }
    for (const line of lines) hits.push({ path, line, text: (text[line - 1] ?? "").trim().slice(0, 200) });
  }
  return hits;
}
