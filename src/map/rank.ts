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
/**
 * A name used in more files than this share of them (and at least UBIQUITOUS_USERS) is a word
 * everything says (`name`, `length`, `toString`, `args`): its uses say little of its definitions.
 */
const UBIQUITOUS_SHARE = 0.1;
const UBIQUITOUS_USERS = 10;
const KEPT_BACK = 1;

interface Edge {
  /** Indexes into the index's files, in its order. */
  from: number;
  to: number;
  name: string;
  weight: number;
}

/** Every definition in the index, the most referred to first (ties: by path, then line). */
export function rankDefinitions(index: CodeIndex, options: RankOptions = {}): RankedDefinition[] {
  const paths = [...index.files.keys()];
  const definers = new Map<string, number[]>();
  paths.forEach((path, at) => {
    for (const definition of index.files.get(path)!.definitions) {
      const found = definers.get(definition.name) ?? definers.set(definition.name, []).get(definition.name)!;
      if (found[found.length - 1] !== at) found.push(at);
    }
  });
  const edges = referenceEdges(index, paths, definers, new Set(options.focusNames ?? []));
  const focus = new Set(options.focusFiles ?? []);
  const fileRank = pageRank(paths.length, edges, paths.map((path) => focus.has(path)));
  // Each file's rank is shared among the names it uses by weight, with a weight of 1 kept back: a
  // file that only says `toString` gives it a fiftieth of its rank, not all of it.
  const outWeight = new Float64Array(paths.length).fill(KEPT_BACK);
  for (const edge of edges) outWeight[edge.from]! += edge.weight;
  const share = new Map<string, number>();
  for (const edge of edges) {
    const key = `${edge.to}\0${edge.name}`;
    share.set(key, (share.get(key) ?? 0) + (fileRank[edge.from]! * edge.weight) / outWeight[edge.from]!);
  }
  const ranked: RankedDefinition[] = [];
  paths.forEach((path, at) => {
    const { definitions } = index.files.get(path)!;
    // Definitions nobody uses still come in their file's order of rank, after every used one.
    const floor = (fileRank[at]! * 1e-3) / Math.max(1, definitions.length);
    for (const definition of definitions) ranked.push({ ...definition, path, rank: share.get(`${at}\0${definition.name}`) ?? floor });
  });
  return ranked.sort((a, b) => b.rank - a.rank || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
}

function referenceEdges(index: CodeIndex, paths: string[], definers: Map<string, number[]>, focusNames: Set<string>): Edge[] {
  const users = new Map<string, number>();
  for (const path of paths) for (const name in index.files.get(path)!.references) if (definers.has(name)) users.set(name, (users.get(name) ?? 0) + 1);
  const ubiquitous = Math.max(UBIQUITOUS_USERS, paths.length * UBIQUITOUS_SHARE);
  const edges: Edge[] = [];
  paths.forEach((path, from) => {
    const { references } = index.files.get(path)!;
    for (const name in references) {
      const targets = definers.get(name);
      if (!targets) continue;
      const common = users.get(name)! > ubiquitous ? 0.02 : 1;
      const weight = common * nameWeight(name, targets.length, focusNames) * Math.sqrt(references[name]!.length);
      for (const to of targets) if (to !== from) edges.push({ from, to, name, weight });
    }
  });
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

/** Weighted PageRank over files by index; the random jump (and a file with no outgoing uses) lands on the focus files when there are any. */
function pageRank(count: number, edges: Edge[], focused: boolean[]): Float64Array {
  const focusCount = focused.filter(Boolean).length;
  const jump = Float64Array.from(focused, (isFocus) => (focusCount ? (isFocus ? 1 / focusCount : 0) : 1 / count));
  const total = new Float64Array(count);
  for (const edge of edges) total[edge.from]! += edge.weight;
  // Each edge's share of its file's rank, worked out once.
  const from = Int32Array.from(edges, (edge) => edge.from);
  const to = Int32Array.from(edges, (edge) => edge.to);
  const fraction = Float64Array.from(edges, (edge) => edge.weight / total[edge.from]!);
  let rank = Float64Array.from(jump);
  for (let step = 0; step < ITERATIONS; step++) {
    const next = new Float64Array(count);
    let dangling = 0;
    for (let file = 0; file < count; file++) if (!total[file]) dangling += rank[file]!;
    for (let edge = 0; edge < from.length; edge++) next[to[edge]!]! += DAMPING * rank[from[edge]!]! * fraction[edge]!;
    for (let file = 0; file < count; file++) next[file]! += (1 - DAMPING + DAMPING * dangling) * jump[file]!;
    rank = next;
  }
  return rank;
}
