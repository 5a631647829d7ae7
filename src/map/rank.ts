// Which definitions matter most: a PageRank over the files, where a file that uses a name points
// at the files that define it, personalized toward the files a run is about; each definition then
// gets the share of rank its users send to it (aider's repo map, in small).
import type { CodeIndex } from "./code-index.ts";
import type { Definition } from "./tags.ts";

export interface RankedDefinition extends Definition {
  path: string;
  rank: number;
}

export interface RankOptions {
  /** Files the run has read or edited, or the person named: the walk restarts at them. */
  focusFiles?: Iterable<string>;
  /** Names the model asked about: their uses weigh ten times as much. */
  focusNames?: Iterable<string>;
}

const DAMPING = 0.85;
const ITERATIONS = 25;
/** A name defined in more files than this is generic (`get`, `init`): its uses say little. */
const GENERIC_DEFINERS = 5;

interface Edge {
  from: string;
  to: string;
  name: string;
  weight: number;
}

/** Every definition in the index, the most referred to first (ties: by path, then line). */
export function rankDefinitions(index: CodeIndex, options: RankOptions = {}): RankedDefinition[] {
  const definers = new Map<string, Set<string>>();
  for (const [path, tags] of index.files) for (const definition of tags.definitions) (definers.get(definition.name) ?? definers.set(definition.name, new Set()).get(definition.name)!).add(path);
  const edges = referenceEdges(index, definers, new Set(options.focusNames ?? []));
  const fileRank = pageRank([...index.files.keys()], edges, new Set(options.focusFiles ?? []));
  const outWeight = new Map<string, number>();
  for (const edge of edges) outWeight.set(edge.from, (outWeight.get(edge.from) ?? 0) + edge.weight);
  const share = new Map<string, number>();
  for (const edge of edges) {
    const key = `${edge.to}\0${edge.name}`;
    share.set(key, (share.get(key) ?? 0) + (fileRank.get(edge.from)! * edge.weight) / outWeight.get(edge.from)!);
  }
  const ranked: RankedDefinition[] = [];
  for (const [path, tags] of index.files) {
    // Definitions nobody uses still come in their file's order of rank, after every used one.
    const floor = (fileRank.get(path)! * 1e-3) / Math.max(1, tags.definitions.length);
    for (const definition of tags.definitions) ranked.push({ ...definition, path, rank: share.get(`${path}\0${definition.name}`) ?? floor });
  }
  return ranked.sort((a, b) => b.rank - a.rank || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
}

function referenceEdges(index: CodeIndex, definers: Map<string, Set<string>>, focusNames: Set<string>): Edge[] {
  const edges: Edge[] = [];
  for (const [from, tags] of index.files) {
    for (const name in tags.references) {
      const targets = definers.get(name);
      if (!targets) continue;
      const weight = nameWeight(name, targets.size, focusNames) * Math.sqrt(tags.references[name]!.length);
      for (const to of targets) if (to !== from) edges.push({ from, to, name, weight });
    }
  }
  return edges;
}

/**
 * How much one name's uses say (aider's weights): a name asked about, or a long compound one
 * (`parseConfig`, `read_tags`), says much; a private or generic one (`_x`, `get`, defined in many
 * files) little.
 */
function nameWeight(name: string, definers: number, focusNames: Set<string>): number {
  let weight = focusNames.has(name) ? 10 : 1;
  if (name.length >= 8 && /[a-z][A-Z]|_[a-zA-Z]|[a-z]-[a-z]/.test(name)) weight *= 10;
  if (name.startsWith("_") || definers > GENERIC_DEFINERS) weight *= 0.1;
  return weight;
}

/** Weighted PageRank; the random jump (and a file with no outgoing uses) lands on the focus files when there are any. */
function pageRank(files: string[], edges: Edge[], focus: Set<string>): Map<string, number> {
  const focused = files.filter((file) => focus.has(file));
  const jump = new Map(files.map((file) => [file, focused.length ? (focus.has(file) ? 1 / focused.length : 0) : 1 / files.length]));
  const out = new Map<string, Edge[]>();
  const total = new Map<string, number>();
  for (const edge of edges) {
    (out.get(edge.from) ?? out.set(edge.from, []).get(edge.from)!).push(edge);
    total.set(edge.from, (total.get(edge.from) ?? 0) + edge.weight);
  }
  let rank = new Map(jump);
  for (let step = 0; step < ITERATIONS; step++) {
    const next = new Map(files.map((file) => [file, 0]));
    let dangling = 0;
    for (const file of files) {
      const mine = rank.get(file)!;
      const leaving = out.get(file);
      if (!leaving) {
        dangling += mine;
        continue;
      }
      for (const edge of leaving) next.set(edge.to, next.get(edge.to)! + (DAMPING * mine * edge.weight) / total.get(file)!);
    }
    for (const file of files) next.set(file, next.get(file)! + (1 - DAMPING + DAMPING * dangling) * jump.get(file)!);
    rank = next;
  }
  return rank;
}
