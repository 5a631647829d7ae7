// The map's parsing, per language: definitions with their lines and signatures, uses (scoped
// `Type::f(` calls included), and the cache by digest.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { buildIndex } from "../../src/map/code-index.ts";
import { findReferences, findSymbol, repoMap, type MapFile } from "../../src/map/repo-map.ts";
import { CASES } from "./fixtures.ts";

const root = mkdtempSync(join(tmpdir(), "glassbox-map-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function writeFiles(folder: string, files: Record<string, string>): MapFile[] {
  return Object.entries(files).map(([path, text]) => {
    const real = join(folder, path);
    mkdirSync(dirname(real), { recursive: true });
    writeFileSync(real, text);
    return { path, real };
  });
}

const FILES = writeFiles(root, Object.fromEntries(CASES.map((one) => [one.path, one.text])));

for (const one of CASES) {
  test(`${one.language}: every definition is found at its name's line, and a use of ${one.use.name}`, async () => {
    const files = FILES.filter((file) => file.path === one.path);
    for (const [name, line] of Object.entries(one.definitions)) {
      const hits = await findSymbol(files, name);
      expect(hits.map((hit) => hit.line)).toContain(line);
      expect(hits.find((hit) => hit.line === line)!.text).toContain(name);
    }
    const uses = await findReferences(files, one.use.name);
    expect(uses.map((use) => use.line)).toContain(one.use.line);
    // A definition is not a use of itself.
    const defined = one.definitions[one.use.name]!;
    expect(uses.map((use) => use.line)).not.toContain(defined);
  });
}

test("signatures stop where the body opens", async () => {
  const hit = (await findSymbol(FILES, "renderAll")).find((one) => one.path.endsWith(".js"));
  expect(hit).toEqual({ path: "lib/widget.js", line: 6, text: "function renderAll(items)" });
  const [python] = await findSymbol(FILES, "render_all").then((hits) => hits.filter((one) => one.path.endsWith(".py")));
  expect(python!.text).toBe("def render_all(items):");
});

test("the map lists each file's definitions as `LINE: SIGNATURE` under `PATH:`, and says when it was cut", async () => {
  const full = await repoMap(FILES, { tokens: 100_000 });
  expect(full).toContain("src/widget.ts:\n");
  expect(full).toContain("\n  9: export function renderAll(items: Widget[]): void\n");
  expect(full).not.toContain("not shown");
  const cut = await repoMap(FILES, { tokens: 120 });
  expect(cut).toMatch(/\[cut to 120 tokens: \d+ more definitions in \d+ files not shown; give a path or a focus\]$/);
  expect(cut.length / 3.5).toBeLessThanOrEqual(120);
  const under = await repoMap(FILES, { tokens: 100_000, path: "pkg" });
  expect(under.split("\n")[0]).toBe("pkg/widget.py:");
  expect(under).not.toContain("src/");
});

test("the most used definition comes first; a focus moves its file up", async () => {
  const folder = mkdtempSync(join(root, "rank-"));
  const files = writeFiles(folder, {
    "core.py": "def parse_config(text):\n    return text\n",
    "lonely.py": "def unused_helper():\n    return 1\n",
    "a.py": "from core import parse_config\nparse_config('a')\n",
    "b.py": "from core import parse_config\nparse_config('b')\n",
  });
  const map = await repoMap(files, { tokens: 10_000 });
  expect(map.split("\n")[0]).toBe("core.py:");
  const focused = await repoMap(files, { tokens: 10_000, focus: ["unused_helper"] });
  expect(focused.indexOf("lonely.py:")).toBeLessThan(focused.indexOf("core.py:"));
});

test("a second build reads the cache and parses nothing; a changed file alone is parsed again", async () => {
  const folder = mkdtempSync(join(root, "cache-"));
  const files = writeFiles(folder, Object.fromEntries(CASES.map((one) => [one.path, one.text])));
  expect((await buildIndex(files, { cacheRoot: folder })).parsed).toBe(CASES.length);
  expect((await buildIndex(files, { cacheRoot: folder })).parsed).toBe(0);
  // Touched but the same bytes: read and hashed, not parsed.
  utimesSync(files[0]!.real, new Date(), new Date(Date.now() + 5000));
  expect((await buildIndex(files, { cacheRoot: folder })).parsed).toBe(0);
  // The same size, other bytes: parsed again.
  writeFileSync(files[2]!.real, CASES[2]!.text.replace("renderAll", "renderAny"));
  utimesSync(files[2]!.real, new Date(), new Date(Date.now() + 10_000));
  expect((await buildIndex(files, { cacheRoot: folder })).parsed).toBe(1);
  writeFileSync(files[1]!.real, "export function Another() {}\n");
  const again = await buildIndex(files, { cacheRoot: folder });
  expect(again.parsed).toBe(1);
  expect(again.files.get(files[1]!.path)!.definitions.map((definition) => definition.name)).toEqual(["Another"]);
});

test("an unchanged repository asked the same again gets the map kept in .glassbox/map/; a change or another request is ranked again", async () => {
  const folder = mkdtempSync(join(root, "rendered-"));
  const files = writeFiles(folder, { "a.py": "def first():\n    return 1\n" });
  expect(await repoMap(files, { tokens: 1000, cacheRoot: folder })).toBe("a.py:\n  1: def first():");
  expect(await repoMap(files, { tokens: 1000, cacheRoot: folder })).toBe("a.py:\n  1: def first():");
  writeFileSync(files[0]!.real, "def second():\n    return 2\n");
  expect(await repoMap(files, { tokens: 1000, cacheRoot: folder })).toBe("a.py:\n  1: def second():");
  expect(await repoMap(files, { tokens: 1000, cacheRoot: folder, path: "b" })).toBe("No definitions found under `b` in files the map parses.");
});

test("JavaScript's other ways to define a function: var, a member assigned, a named expression, an object's method", async () => {
  const folder = mkdtempSync(join(root, "js-"));
  const files = writeFiles(folder, {
    "lib/request.js": 'var legacy = function () {};\nreq.accepts = function (type) {\n  return type;\n};\ndefineGetter(req, "host", function host() {});\nmodule.exports = { index: function (req) {} };\n',
  });
  const found = await Promise.all(["legacy", "accepts", "host", "index"].map(async (name) => (await findSymbol(files, name)).map((hit) => hit.line)));
  expect(found).toEqual([[1], [2], [5], [6]]);
  expect((await findSymbol(files, "accepts"))[0]!.text).toBe("req.accepts = function (type) {");
});

test("a cold build lets the event loop run while it parses (the TUI keeps drawing)", async () => {
  const folder = mkdtempSync(join(root, "turns-"));
  const files = writeFiles(folder, Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`m${i}.py`, `def f${i}():\n    return ${i}\n`])));
  await buildIndex(files.slice(0, 1)); // Python's parser loaded: what follows is parsing alone.
  let turns = 0;
  let done = false;
  const turn = (): void => {
    if (done) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  await buildIndex(files);
  done = true;
  expect(turns).toBeGreaterThanOrEqual(2);
});

test("a word every file says (`name`) does not outrank a definition a few files really use", async () => {
  const folder = mkdtempSync(join(root, "ubiquitous-"));
  const files: Record<string, string> = {
    "core.py": "def parse_config(text):\n    return text\n",
    "common.py": "def name():\n    return 'x'\n",
    "a.py": "from core import parse_config\nparse_config('a')\n",
    "b.py": "from core import parse_config\nparse_config('b')\n",
  };
  for (let i = 0; i < 30; i++) files[`user${i}.py`] = `print(thing${i}.name)\n`;
  const map = await repoMap(writeFiles(folder, files), { tokens: 10_000 });
  expect(map.split("\n")[0]).toBe("core.py:");
});

test("a file named in focus comes first in the map", async () => {
  const folder = mkdtempSync(join(root, "focus-file-"));
  const files = writeFiles(folder, {
    "core.py": "def parse_config(text):\n    return text\n",
    "a.py": "from core import parse_config\nparse_config('a')\n",
    "b.py": "from core import parse_config\nparse_config('b')\n",
    "docs/tool.py": "from core import parse_config\n\ndef lonely_helper():\n    return parse_config('x')\n",
  });
  // Without the file first, what it uses (core.py) would lead: the walk starts at the focus.
  const map = (await repoMap(files, { tokens: 10_000, focus: ["tool.py"] })).split("\n");
  expect(map.slice(0, 3)).toEqual(["docs/tool.py:", "  3: def lonely_helper():", "core.py:"]);
});
