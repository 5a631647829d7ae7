import type { Mutant } from "../mutate.ts";

/** The tree tools' guards (src/tools/tree): git's ignore rules, the walk, globs, the linear-time search. */
export const MUTANTS: Mutant[] = [
  {
    name: "ignored folder entered",
    file: "src/tools/tree/walk.ts",
    find: "if (rules.ignores(entryPath, true)) continue;",
    replace: "if (false) continue;",
    tests: ["test/tools/tree/walk.test.ts"],
  },
  {
    name: "ignored file shown",
    file: "src/tools/tree/walk.ts",
    find: "if (!rules.ignores(entryPath, false)) yield",
    replace: "if (true) yield",
    tests: ["test/tools/tree/walk.test.ts"],
  },
  {
    name: "ignore negation dropped",
    file: "src/tools/tree/ignore-rules.ts",
    find: "ignore({ ignorecase: IGNORE_CASE }).add(asBytes(text))",
    replace: 'ignore({ ignorecase: IGNORE_CASE }).add(asBytes(text.replace(/^!.*$/gm, "")))',
    tests: ["test/tools/tree/ignore-rules.test.ts"],
  },
  {
    name: "a deeper .gitignore's negation loses to a shallower line",
    file: "src/tools/tree/ignore-rules.ts",
    find: 'if (unignored) return "kept";',
    replace: "if (unignored) continue;",
    tests: ["test/tools/tree/ignore-rules.test.ts"],
  },
  {
    name: "a re-included folder judged through the shallower line that ignored it",
    file: "src/tools/tree/ignore-rules.ts",
    find: 'folder && this.verdict(folder, true, index + 1, index) === "ignored"',
    replace: "false",
    tests: ["test/tools/tree/ignore-rules.test.ts"],
  },
  {
    name: ".git/info/exclude skipped",
    file: "src/tools/tree/ignore-rules.ts",
    find: 'levels.unshift(makeLevel(readRules(exclude), "", prefixOf(0)));',
    replace: "",
    tests: ["test/tools/tree/ignore-rules.test.ts"],
  },
  {
    name: "nested .gitignore files not read",
    file: "src/tools/tree/walk.ts",
    find: 'dirents.some((dirent) => dirent.name === ".gitignore") ? readRules(join(real, ".gitignore")) : ""',
    replace: 'path ? "" : readRules(join(real, ".gitignore"))',
    tests: ["test/tools/tree/ignore-rules.test.ts"],
  },
  {
    name: "off-limits name listed by the tree tools",
    file: "src/tools/tree/walk.ts",
    find: "if (isOffLimitsName(name) || NEVER_SHOWN.has(name)) continue;",
    replace: "if (NEVER_SHOWN.has(name)) continue;",
    tests: ["test/tools/tree/walk.test.ts"],
  },
  {
    name: "node_modules listed when no .gitignore names it",
    file: "src/tools/tree/walk.ts",
    find: "if (isOffLimitsName(name) || NEVER_SHOWN.has(name)) continue;",
    replace: "if (isOffLimitsName(name)) continue;",
    tests: ["test/tools/tree/walk.test.ts"],
  },
  {
    name: "an ignored folder accepted as directory",
    file: "src/tools/tree/walk.ts",
    find: "if (NEVER_SHOWN.has(name) || rules.ignores(above, true)) {",
    replace: "if (false) {",
    tests: ["test/tools/tree/walk.test.ts"],
  },
  {
    name: "a glob without a slash anchored to the root",
    file: "src/tools/tree/glob.ts",
    find: 'return (path) => matcher.match(path.slice(path.lastIndexOf("/") + 1));',
    replace: "return (path) => matcher.match(path);",
    tests: ["test/tools/tree/glob.test.ts"],
  },
  {
    name: "search runs a backtracking engine (linear-time engine off)",
    file: "src/tools/tree/pattern.ts",
    find: "return { matchingLines: (text) => matchingLines(compiled, text) };",
    replace:
      'const native = new RegExp(literal ? source!.replace(/[.*+?^${}()|[\\]\\\\]/g, "\\\\$&") : source!, args.ignore_case ? "i" : ""); return { matchingLines: (text) => text.replace(/\\n$/, "").split("\\n").flatMap((line, index) => (native.test(line) ? [index] : [])) };',
    tests: ["test/tools/search_text.test.ts"],
  },
  {
    name: "search match cap off",
    file: "src/tools/search_text.ts",
    find: "const room = MAX_MATCHES - matches;",
    replace: "const room = Infinity;",
    tests: ["test/tools/search_text.test.ts"],
  },
  {
    name: "search line shown without its own match check",
    file: "src/tools/tree/pattern.ts",
    find: "if (pattern.test(text.slice(lineStart, lineEnd))) lines.push(line);",
    replace: "lines.push(line);",
    tests: ["test/tools/tree/pattern.test.ts"],
  },
];
