// tree-sitter, loaded on first use: the runtime module and its wasm when the first file is parsed,
// each grammar when the first file of its language is. Start and idle memory pay nothing for it.
import { readFileSync } from "node:fs";
import type { Language, Node, Parser, Query } from "web-tree-sitter";
import { RUNTIME_WASM, type LanguageSpec } from "./languages.ts";

type Runtime = typeof import("web-tree-sitter");

export interface LoadedLanguage {
  spec: LanguageSpec;
  parser: Parser;
  tags: Query;
  references: Query;
  /** The nodes whose text is read for uses (LanguageSpec.textUses), if any. */
  textUses?: Query;
}

let runtime: Promise<Runtime> | undefined;
const loaded = new Map<LanguageSpec, Promise<LoadedLanguage>>();

function loadRuntime(): Promise<Runtime> {
  runtime ??= (async () => {
    const module = await import("web-tree-sitter");
    await module.Parser.init({ locateFile: () => RUNTIME_WASM });
    return module;
  })();
  return runtime;
}

/** The parser and compiled queries of a language, made once per process. */
export function loadLanguage(spec: LanguageSpec): Promise<LoadedLanguage> {
  let found = loaded.get(spec);
  if (!found) {
    found = (async () => {
      const { Parser, Language, Query } = await loadRuntime();
      const language: Language = await Language.load(Bun.gunzipSync(readFileSync(spec.wasm)));
      const parser = new Parser();
      parser.setLanguage(language);
      const references = new Query(language, `[${spec.references.map((type) => `(${type})`).join(" ")}] @reference`);
      const textUses = spec.textUses ? new Query(language, `[${spec.textUses.map((type) => `(${type})`).join(" ")}] @text`) : undefined;
      return { spec, parser, tags: new Query(language, spec.tags), references, textUses };
    })();
    loaded.set(spec, found);
  }
  return found;
}

/** Whether tree-sitter has been loaded in this process (tests check that start does not load it). */
export function runtimeLoaded(): boolean {
  return runtime !== undefined;
}

/** The first node in the tree that did not parse: an ERROR node or a MISSING one, depth first. */
export function firstProblem(root: Node): Node | undefined {
  if (!root.hasError) return undefined;
  const cursor = root.walk();
  for (;;) {
    const node = cursor.currentNode;
    if (node.isError || node.isMissing) return node;
    if (node.hasError && cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return undefined;
  }
}
