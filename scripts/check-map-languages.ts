#!/usr/bin/env bun
/**
 * Does the map agree with real code? For each folder given (a checkout of a real repository):
 *
 * - Definitions, like for like: the map's beside Universal Ctags' over the same files (those the
 *   map reads: a file over its 512 KiB limit is left out of both), counting only ctags' kinds
 *   that are what the contract asks the map for (classes, functions, methods, types,
 *   interfaces), language by language (KINDS), and leaving out the tags of ctags' that are not
 *   such a definition (NOT_LIKE, each with why). A name is compared without its spaces (ctags
 *   writes `operator ==`, the map `operator==`). Printed per language, with what was left out.
 * - Uses: find_references beside a whole-word text search for 20 defined names (the text search
 *   also finds words in comments and strings, so the map's share is below 100% where those
 *   mention a name).
 * - Calls: every line that calls a name (`name(`, `.name(`), and every scoped call (`Type::f(`,
 *   `ns::f(`) in code, comment lines left out: is the line among the name's uses?
 *
 *   bun scripts/check-map-languages.ts [--misses] DIR...
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Workspace } from "../src/files/workspace.ts";
import { mapFiles } from "../src/tools/map-files.ts";
import { buildIndex, type CodeIndex, type MapFile } from "../src/map/code-index.ts";
import { findReferences } from "../src/map/repo-map.ts";
import { languageOf } from "../src/map/languages.ts";

/** ctags' kinds, language by language, that are the definitions the contract asks the map for. */
const KINDS: Record<string, string[]> = {
  Python: ["class", "function", "member"],
  Go: ["func", "struct", "type", "interface", "talias", "methodSpec"],
  Rust: ["function", "method", "struct", "enum", "union", "interface", "typedef", "module", "macro"],
  Java: ["class", "interface", "enum", "method", "record", "annotation"],
  "C#": ["class", "struct", "interface", "enum", "record", "method", "property"],
  Ruby: ["class", "module", "method", "singletonMethod"],
  PHP: ["class", "interface", "trait", "enum", "function"],
  JavaScript: ["class", "function", "method", "generator"],
  TypeScript: ["class", "function", "method", "interface", "alias", "enum"],
  C: ["function", "struct", "union", "enum", "typedef"],
  "C++": ["function", "class", "struct", "union", "enum", "typedef"],
};

interface CtagsTag {
  _type: string;
  name: string;
  path: string;
  line: number;
  kind: string;
  language: string;
  pattern?: string;
  scope?: string;
}

const escaped = (name: string) => name.replace(/[$.*+?()[\]{}|\\^]/g, "\\$&");

/** Words that are followed by `(` in code without being a method's name there: `if (`, a construct signature's `new (`. */
const SCRIPT_KEYWORDS = new Set(["if", "for", "while", "switch", "return", "new", "extends", "typeof", "await", "yield", "super", "function"]);

/** Whether a JavaScript or TypeScript line declares the tag's name: `class N`, `function N`, `type N =`, `N = function`, `N(` (a method). */
function declaresScript(tag: CtagsTag): boolean {
  const name = escaped(tag.name);
  const declares = new RegExp(`\\b(?:class|function\\*?|interface|enum|namespace|module)\\s+${name}\\b|\\btype\\s+${name}\\s*[<=]|\\b${name}\\s*[:=]\\s*(?:async\\s+)?(?:function|class)\\b`);
  const method = new RegExp(`(?<![\\w.$])${name}\\s*[<(]`);
  return declares.test(tag.pattern ?? "") || (!SCRIPT_KEYWORDS.has(tag.name) && method.test(tag.pattern ?? ""));
}

/** ctags' tags of those kinds that are not what the map is asked for, and why. */
const NOT_LIKE: { why: string; test: (tag: CtagsTag) => boolean }[] = [
  { why: "anonymous, or a test macro (TEST(…) { … })", test: (tag) => /^(Anonymous|__anon)|^(TEST|IGNORE_TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P|TEST_SETUP|TEST_TEAR_DOWN|TEST_GROUP|TEST_GROUP_RUNNER)$/.test(tag.name) },
  {
    why: "nothing of that name declared on its line (ctags calls an object literal held by a variable a class, names X for X.prototype.m = …, reads `type` in `import { type X }` or `x.type satisfies` as a type alias, a keyword as a name)",
    test: (tag) => (tag.language === "JavaScript" || tag.language === "TypeScript") && !declaresScript(tag),
  },
  {
    why: "C#: a generic constraint's names (`where TRequest : IRequest`), which ctags reads as a property or an interface",
    test: (tag) => tag.language === "C#" && /\bwhere\s+\w+\s*:/.test(tag.pattern ?? "") && !new RegExp(`\\b(?:class|interface|struct|record|enum)\\s+${escaped(tag.name)}\\b|\\b${escaped(tag.name)}\\s*[<(]`).test(tag.pattern ?? ""),
  },
  {
    why: "Ruby: `def obj.m`, which ctags names after its receiver (obj, self), not the method",
    test: (tag) => tag.language === "Ruby" && tag.kind === "singletonMethod" && new RegExp(`\\bdef\\s+${escaped(tag.name)}\\.`).test(tag.pattern ?? ""),
  },
  {
    why: "JavaScript: a function held by a variable inside a function (the map keeps those at the top level only)",
    test: (tag) => tag.language === "JavaScript" && tag.kind === "function" && !!tag.scope && new RegExp(`\\b(?:var|let|const)\\s+${escaped(tag.name)}\\s*=`).test(tag.pattern ?? ""),
  },
];

const misses = process.argv.includes("--misses");
const key = (path: string, line: number, name: string) => `${path}:${line}:${name.replace(/\s+/g, "")}`;

function ctagsOf(dir: string, files: MapFile[]): CtagsTag[] {
  const run = Bun.spawnSync(["ctags", "--output-format=json", "--fields=+nKlZ", "-f", "-", "-L", "-"], { cwd: dir, stdin: new TextEncoder().encode(files.map((file) => file.path).join("\n")) });
  return run.stdout
    .toString()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as CtagsTag)
    .filter((tag) => tag._type === "tag");
}

/** Definitions, language by language: found of ctags' like for like, and what was left out of ctags' and why. */
function definitions(dir: string, files: MapFile[], index: CodeIndex, mine: Set<string>): string[] {
  const read = files.filter((file) => index.files.has(file.path));
  const byLanguage = new Map<string, { found: number; counted: number; left: Map<string, number> }>();
  for (const tag of ctagsOf(dir, read)) {
    if (!KINDS[tag.language]?.includes(tag.kind)) continue;
    const entry = byLanguage.get(tag.language) ?? { found: 0, counted: 0, left: new Map() };
    byLanguage.set(tag.language, entry);
    const unlike = NOT_LIKE.find((rule) => rule.test(tag));
    if (unlike) {
      entry.left.set(unlike.why, (entry.left.get(unlike.why) ?? 0) + 1);
      if (misses && mine.has(key(tag.path, tag.line, tag.name))) console.log(`  left out, though the map has it: ${tag.language} ${tag.kind} ${tag.path}:${tag.line} ${tag.name}  ${tag.pattern ?? ""}`);
      continue;
    }
    entry.counted++;
    if (mine.has(key(tag.path, tag.line, tag.name))) entry.found++;
    else if (misses) console.log(`  missed: ${tag.language} ${tag.kind} ${tag.path}:${tag.line} ${tag.name}  ${tag.pattern ?? ""}`);
  }
  return [...byLanguage]
    .sort((a, b) => b[1].counted - a[1].counted)
    .map(([language, { found, counted, left }]) => {
      const out = [...left].map(([why, count]) => `${count} ${why}`).join("; ");
      return `  ${language}: definitions ${found} of ctags' ${counted} (${((100 * found) / Math.max(1, counted)).toFixed(1)}%)${out ? `; left out of ctags': ${out}` : ""}`;
    });
}

/** find_references for 20 names spread over the definitions, long enough to be specific, beside a whole-word search. */
async function uses(files: MapFile[], names: string[], mine: Set<string>): Promise<string> {
  const sample = [...new Set(names.filter((name) => name.length >= 6 && /^\w+$/.test(name)))].filter((_, at, all) => at % Math.max(1, Math.floor(all.length / 20)) === 0).slice(0, 20);
  let textual = 0;
  let matched = 0;
  for (const name of sample) {
    const found = new Set((await findReferences(files, name)).map((hit) => `${hit.path}:${hit.line}`));
    const word = new RegExp(`\\b${name}\\b`);
    for (const file of files) {
      readFileSync(file.real, "utf8").split("\n").forEach((text, at) => {
        if (!word.test(text) || mine.has(key(file.path, at + 1, name))) return;
        textual++;
        if (found.has(`${file.path}:${at + 1}`)) matched++;
      });
    }
  }
  return `  uses of ${sample.length} names: ${matched} of ${textual} lines with the word (${((100 * matched) / Math.max(1, textual)).toFixed(0)}%)`;
}

const NOT_CALLED = new Set(["let", "mut", "else", "pub", "tt", "import", "const", "var", "type", "except", "as", "with", "lambda", "elsif", "int", "unsigned", "signed", "char", "bool", "void", "float", "double", "long", "short", "size_t", "auto", "operator", "constexpr", "if", "for", "while", "switch", "return", "sizeof", "catch", "function", "fn", "func", "def", "elif", "and", "or", "not", "in", "foreach", "using", "lock", "typeof", "alignof", "decltype", "defined", "static_assert", "assert", "new", "delete", "match", "await", "yield", "throw", "print", "echo", "unless", "until", "when", "do"]);

/** Every call-shaped line in code (comment lines left out), plain and scoped: among the name's uses? */
function calls(index: CodeIndex, files: MapFile[], mine: Set<string>): string {
  const counts = { plain: 0, plainFound: 0, scoped: 0, scopedFound: 0 };
  const missed: string[] = [];
  for (const file of files) {
    const tags = index.files.get(file.path);
    if (!tags) continue;
    let docstring = false;
    readFileSync(file.real, "utf8").split("\n").forEach((line, at) => {
      // Python's docstrings and comment lines are left out (a C macro's body is not: the map reads its words).
      const inDocstring = docstring || /"""|'''/.test(line);
      if ((line.match(/"""|'''/g)?.length ?? 0) % 2) docstring = !docstring;
      if (inDocstring || /^\s*(\/\/|\/\*|\*|#(?!\[|\s*define)|--)/.test(line)) return;
      const text = line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`|\/\/.*$|\/\*.*?\*\//g, " ");
      for (const [, scope, name] of text.matchAll(/(::|\.|(?<![\w$:]))([A-Za-z_]\w*)\s*\(/g)) {
        if (!name || NOT_CALLED.has(name) || mine.has(key(file.path, at + 1, name))) continue;
        const found = Object.hasOwn(tags.references, name) && tags.references[name]!.includes(at + 1);
        const kind = scope === "::" ? "scoped" : "plain";
        counts[kind]++;
        if (found) counts[`${kind}Found`]++;
        else if (misses && (kind === "scoped" || missed.length < 60)) missed.push(`  missed call: ${file.path}:${at + 1} ${name}  ${line.trim()}`);
      }
    });
  }
  for (const line of missed.slice(0, 80)) console.log(line);
  const share = (found: number, all: number) => `${found} of ${all} (${((100 * found) / Math.max(1, all)).toFixed(1)}%)`;
  return `  calls: name( and .name( ${share(counts.plainFound, counts.plain)}; scoped Type::f( ${share(counts.scopedFound, counts.scoped)}`;
}

async function check(dir: string): Promise<void> {
  const files = mapFiles(new Workspace(dir)).filter((file) => languageOf(file.path));
  const index = await buildIndex(files);
  const mine = new Set<string>();
  const names: string[] = [];
  for (const [path, tags] of index.files) for (const definition of tags.definitions) (mine.add(key(path, definition.line, definition.name)), names.push(definition.name));
  console.log(`${dir.split("/").pop()}: ${index.files.size} files mapped (${files.length - index.files.size} over the size limit or binary), ${mine.size} definitions`);
  for (const line of definitions(dir, files, index, mine)) console.log(line);
  console.log(await uses(files.filter((file) => index.files.has(file.path)), names, mine));
  console.log(calls(index, files, mine));
}

for (const dir of process.argv.slice(2).filter((arg) => arg !== "--misses")) await check(join(dir));
