import type { Mutant } from "../mutate.ts";

/** The tree tools' guards (src/tools/tree): git's ignore rules, the walk, globs, the linear-time search. */
export const MUTANTS: Mutant[] = [
  {
    name: "ignored folder entered",
    file: "src/tools/tree/walk.ts",
    find: "if (rules.ignores(entryPath, true)) continue;",
    replace: "if (false) continue;",
  },
  {
    name: "ignored file shown",
    file: "src/tools/tree/walk.ts",
    find: "if (!rules.ignores(entryPath, false)) yield",
    replace: "if (true) yield",
  },
  {
    name: "ignore negation dropped",
    file: "src/tools/tree/ignore-rules.ts",
    find: "ignore({ ignorecase: IGNORE_CASE }).add(asBytes(text))",
    replace: 'ignore({ ignorecase: IGNORE_CASE }).add(asBytes(text.replace(/^!.*$/gm, "")))',
  },
  {
    name: "a deeper .gitignore's negation loses to a shallower line",
    file: "src/tools/tree/ignore-rules.ts",
    find: 'if (unignored) return "kept";',
    replace: "if (unignored) continue;",
  },
  {
    name: "a re-included folder judged through the shallower line that ignored it",
    file: "src/tools/tree/ignore-rules.ts",
    find: 'folder && this.verdict(folder, true, index + 1, index) === "ignored"',
    replace: "false",
  },
  {
    name: ".git/info/exclude skipped",
    file: "src/tools/tree/ignore-rules.ts",
    find: 'levels.unshift(makeLevel(readRules(exclude), "", prefixOf(0)));',
    replace: "",
  },
  {
    name: "nested .gitignore files not read",
    file: "src/tools/tree/walk.ts",
    find: 'dirents.some((dirent) => dirent.name === ".gitignore") ? readRules(join(real, ".gitignore")) : ""',
    replace: 'path ? "" : readRules(join(real, ".gitignore"))',
  },
  {
    name: "off-limits name listed by the tree tools",
    file: "src/tools/tree/walk.ts",
    find: "if (isOffLimitsName(name) || NEVER_SHOWN.has(name)) continue;",
    replace: "if (NEVER_SHOWN.has(name)) continue;",
  },
  {
    name: "node_modules listed when no .gitignore names it",
    file: "src/tools/tree/walk.ts",
    find: "if (isOffLimitsName(name) || NEVER_SHOWN.has(name)) continue;",
    replace: "if (isOffLimitsName(name)) continue;",
  },
  {
    name: "an ignored folder accepted as directory",
    file: "src/tools/tree/walk.ts",
    find: "if (NEVER_SHOWN.has(name) || rules.ignores(above, true)) {",
    replace: "if (false) {",
  },
  {
    name: "a glob without a slash anchored to the root",
    file: "src/tools/tree/glob.ts",
    find: 'return (path) => matcher.match(path.slice(path.lastIndexOf("/") + 1));',
    replace: "return (path) => matcher.match(path);",
  },
  {
    name: "search runs a backtracking engine (linear-time engine off)",
    file: "src/tools/tree/pattern.ts",
    find: "return { matchingLines: (text) => matchingLines(compiled, text) };",
    replace:
      'const native = new RegExp(literal ? source!.replace(/[.*+?^${}()|[\\]\\\\]/g, "\\\\$&") : source!, args.ignore_case ? "i" : ""); return { matchingLines: (text) => text.replace(/\\n$/, "").split("\\n").flatMap((line, index) => (native.test(line) ? [index] : [])) };',
  },
  {
    name: "search match cap off",
    file: "src/tools/search_text.ts",
    find: "const room = MAX_MATCHES - matches;",
    replace: "const room = Infinity;",
  },
  {
    name: "search line shown without its own match check",
    file: "src/tools/tree/pattern.ts",
    find: "if (pattern.test(text.slice(lineStart, lineEnd))) lines.push(line);",
    replace: "lines.push(line);",
  },
];
