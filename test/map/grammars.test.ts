// The packed grammars (src/map/grammars/*.wasm.gz) are exactly the installed grammar packages'
// wasm: upgrading a package without `bun scripts/pack-grammars.ts` fails here.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GRAMMAR_SOURCES } from "../../src/map/grammar-sources.ts";
import { LANGUAGES } from "../../src/map/languages.ts";

const ROOT = join(import.meta.dir, "..", "..");

test("every packed grammar unpacks to its package's wasm, and every language uses one", () => {
  for (const [name, source] of Object.entries(GRAMMAR_SOURCES)) {
    const packed = Bun.gunzipSync(readFileSync(join(ROOT, "src/map/grammars", `${name}.wasm.gz`)));
    expect(Bun.hash(packed)).toBe(Bun.hash(readFileSync(join(ROOT, "node_modules", source))));
  }
  const packed = new Set(Object.keys(GRAMMAR_SOURCES).map((name) => `${name}.wasm.gz`));
  for (const language of LANGUAGES) expect(packed.has(language.wasm.split("/").pop()!)).toBe(true);
});
