#!/usr/bin/env bun
/**
 * Packs the grammars the map embeds: each grammar package's wasm, gzipped into
 * src/map/grammars/NAME.wasm.gz (17.4 MB of wasm is 1.6 MB gzipped: the parse tables are mostly
 * zeros), so the binary carries a tenth of it. Run after upgrading a grammar package;
 * test/map/grammars.test.ts fails until the packed files match the installed ones.
 *
 *   bun scripts/pack-grammars.ts
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GRAMMAR_SOURCES } from "../src/map/grammar-sources.ts";

const ROOT = join(import.meta.dir, "..");

for (const [name, source] of Object.entries(GRAMMAR_SOURCES)) {
  const wasm = readFileSync(join(ROOT, "node_modules", source));
  const packed = Bun.gzipSync(wasm, { level: 9 });
  writeFileSync(join(ROOT, "src/map/grammars", `${name}.wasm.gz`), packed);
  console.log(`${name}: ${wasm.length} bytes -> ${packed.length}`);
}
