// One file's tags: its definitions (with signatures) and the names it uses, from the tags query
// and the reference query of its language.
import type { Node, Query } from "web-tree-sitter";
import { loadLanguage, type LoadedLanguage } from "./parser.ts";
import type { LanguageSpec } from "./languages.ts";

export interface Definition {
  name: string;
  /** class, function, method, type, interface, constant, module */
  kind: string;
  /** 1-based line of the definition's name. */
  line: number;
  /** The definition's first line(s), from its start to its body, trimmed. */
  signature: string;
}

export interface FileTags {
  definitions: Definition[];
  /** Each name used (not defined) in the file, with the 1-based lines it is used on, ascending. */
  references: Record<string, number[]>;
}

const MAX_SIGNATURE_CHARS = 160;
const MAX_SIGNATURE_LINES = 3;

/** Parses a file's text and reads its tags. */
export async function readTags(spec: LanguageSpec, text: string): Promise<FileTags> {
  const language = await loadLanguage(spec);
  const tree = language.parser.parse(text);
  if (!tree) return { definitions: [], references: {} };
  // A C or C++ file that does not parse whole is read again with its macros blanked (same offsets), for its definitions.
  const blanked = tree.rootNode.hasError && spec.blankMacros ? spec.blankMacros(text) : text;
  const again = blanked !== text ? language.parser.parse(blanked) : null;
  try {
    const named = new Set<number>();
    const definitions = readDefinitions(language, (again ?? tree).rootNode, text.split("\n"), named);
    const references: Record<string, number[]> = Object.create(null);
    for (const capture of language.references.captures(tree.rootNode)) {
      const node = capture.node;
      if (named.has(node.startIndex)) continue;
      const line = node.startPosition.row + 1;
      const found = (references[node.text] ??= []);
      if (found[found.length - 1] !== line) found.push(line);
    }
    if (language.textUses) addTextUses(language.textUses, tree.rootNode, references);
    return { definitions, references };
  } finally {
    tree.delete();
    again?.delete();
  }
}

/** A macro's body is text to tree-sitter: each of its words is a use, on its own line (the names' lines kept ascending, once each). */
function addTextUses(query: Query, root: Node, references: Record<string, number[]>): void {
  const touched = new Set<number[]>();
  for (const { node } of query.captures(root)) {
    for (const word of node.text.matchAll(/[A-Za-z_]\w*/g)) {
      const found = (references[word[0]] ??= []);
      found.push(node.startPosition.row + 1 + (node.text.slice(0, word.index).match(/\n/g)?.length ?? 0));
      touched.add(found);
    }
  }
  for (const lines of touched) {
    const sorted = [...new Set(lines)].sort((a, b) => a - b);
    lines.splice(0, lines.length, ...sorted);
  }
}

/** The definitions the tags query finds, by line; each name's start offset goes into `named`. */
function readDefinitions(language: LoadedLanguage, root: Node, lines: string[], named: Set<number>): Definition[] {
  const definitions: Definition[] = [];
  for (const match of language.tags.matches(root)) {
    const name = match.captures.find((capture) => capture.name === "name")?.node;
    const whole = match.captures.find((capture) => capture.name.startsWith("definition."));
    if (!name || !whole || named.has(name.startIndex)) continue;
    named.add(name.startIndex);
    definitions.push({ name: nameOf(name), kind: whole.name.slice("definition.".length), line: name.startPosition.row + 1, signature: signatureOf(whole.node, name, lines) });
  }
  return definitions.sort((a, b) => a.line - b.line);
}

/** A name's text; a C++ conversion operator's node also holds its parameters and qualifiers (`operator bool() const`): up to them. */
function nameOf(name: Node): string {
  return name.type === "operator_cast" ? name.text.replace(/\(.*$/s, "").replace(/\s+/g, " ").trim() : name.text;
}

/**
 * From the line of the definition's name (decorators and comments above it left out) to where its
 * body opens, at most a few lines, whitespace collapsed; a definition without a body: its line.
 */
function signatureOf(definition: Node, name: Node, lines: string[]): string {
  const first = name.startPosition.row;
  const body = definition.childForFieldName("body");
  const row = body?.startPosition.row ?? -1;
  const opens = body && row >= first && row - first < MAX_SIGNATURE_LINES ? body.startPosition : undefined;
  const taken = lines.slice(first, (opens?.row ?? first) + 1);
  if (opens) taken[taken.length - 1] = taken[taken.length - 1]!.slice(0, opens.column);
  const text = taken.join(" ").replace(/\s+/g, " ").trim();
  return text.length > MAX_SIGNATURE_CHARS ? `${text.slice(0, MAX_SIGNATURE_CHARS - 1)}…` : text;
}
