// The house's shape, read from the code's own imports (docs/architecture.md): imports run one way
// between src/'s folders, no files import each other in a circle (type-only imports count too),
// and no function is longer than a reader can hold at once.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = join(import.meta.dir, "..");
const SRC = join(ROOT, "src");
const MAX_FUNCTION_LINES = 80;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

const FILES = sourceFiles(SRC);
const PARSED = new Map(FILES.map((file) => [file, ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)]));

function specifiers(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = resolve(dirname(from), specifier);
  return [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((path) => PARSED.has(path) && existsSync(path));
}

const EDGES = new Map(FILES.map((file) => [file, [...new Set(specifiers(PARSED.get(file)!).flatMap((spec) => resolveImport(file, spec) ?? []))]]));

/** The top folder under src/ that a file lives in ("core", "model", …). */
function folderOf(file: string): string {
  return relative(SRC, file).split("/")[0]!;
}

/** Every pair of folders where each imports the other, with one import each way as evidence. */
function mutualFolders(edges: Map<string, string[]>): string[] {
  const witness = new Map<string, string>();
  for (const [from, targets] of edges) {
    for (const to of targets) {
      const pair = `${folderOf(from)}->${folderOf(to)}`;
      if (folderOf(from) !== folderOf(to) && !witness.has(pair)) witness.set(pair, `${relative(ROOT, from)} -> ${relative(ROOT, to)}`);
    }
  }
  const pairs: string[] = [];
  for (const [pair, evidence] of witness) {
    const [a, b] = pair.split("->") as [string, string];
    if (a < b && witness.has(`${b}->${a}`)) pairs.push(`${a}<->${b}: ${evidence}; ${witness.get(`${b}->${a}`)}`);
  }
  return pairs.sort();
}

/** Strongly connected groups of more than one file (Tarjan), or a file importing itself. */
function fileCycles(edges: Map<string, string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (file: string): void => {
    order.set(file, index);
    low.set(file, index++);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!order.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, order.get(next)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(relative(ROOT, member));
    } while (member !== file);
    if (group.length > 1 || (edges.get(file) ?? []).includes(file)) cycles.push(group.sort());
  };
  for (const file of edges.keys()) if (!order.has(file)) connect(file);
  return cycles;
}

function functionName(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText();
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText();
  return "(anonymous)";
}

/** Every function, method, constructor or arrow in src/ that spans more than the limit. */
function longFunctions(limit: number): string[] {
  const long: string[] = [];
  for (const [file, source] of PARSED) {
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        if (end - start + 1 > limit) long.push(`${relative(ROOT, file)}:${start + 1} ${functionName(node)} (${end - start + 1} lines)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return long;
}

test("no two folders of src/ import each other: imports flow one way (docs/architecture.md)", () => {
  expect(mutualFolders(EDGES)).toEqual([]);
});

test("no files of src/ import each other in a circle, type-only imports included", () => {
  expect(fileCycles(EDGES)).toEqual([]);
});

test("the vocabulary floor, src/protocol/, imports nothing else of the project", () => {
  const outside = [...EDGES].flatMap(([from, targets]) =>
    folderOf(from) === "protocol" ? targets.filter((to) => folderOf(to) !== "protocol").map((to) => `${relative(ROOT, from)} -> ${relative(ROOT, to)}`) : [],
  );
  expect(outside).toEqual([]);
});

test(`no function in src/ is longer than ${MAX_FUNCTION_LINES} lines`, () => {
  expect(longFunctions(MAX_FUNCTION_LINES)).toEqual([]);
});

test("the reader finds real imports: the run imports its parts, a type-only import is an edge, a circle is found", () => {
  const run = FILES.find((file) => file.endsWith("/core/run.ts"))!;
  expect((EDGES.get(run) ?? []).length).toBeGreaterThan(3);
  const synthetic = new Map([
    [join(SRC, "a/x.ts"), [join(SRC, "b/y.ts")]],
    [join(SRC, "b/y.ts"), [join(SRC, "a/x.ts")]],
  ]);
  expect(fileCycles(synthetic)).toEqual([["src/a/x.ts", "src/b/y.ts"]]);
  expect(mutualFolders(synthetic)).toEqual(["a<->b: src/a/x.ts -> src/b/y.ts; src/b/y.ts -> src/a/x.ts"]);
});
