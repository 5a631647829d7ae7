#!/usr/bin/env bun
/**
 * Does the map agree with real code? For each folder given (a checkout of a real repository), the
 * map's definitions beside Universal Ctags' functions, classes, methods and types over the same
 * files (ctags' anonymous and test-macro tags left out), and find_references beside a whole-word
 * text search for 20 defined names (the text search also finds words in comments and strings,
 * so the map's share is below 100% where those mention a name).
 *
 *   bun scripts/check-map-languages.ts DIR...
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Workspace } from "../src/files/workspace.ts";
import { mapFiles } from "../src/tools/map-files.ts";
import { buildIndex } from "../src/map/code-index.ts";
import { findReferences } from "../src/map/repo-map.ts";
import { languageOf } from "../src/map/languages.ts";

const KINDS = new Set(["function", "func", "class", "method", "struct", "interface", "enum", "trait", "module", "type", "constructor", "record"]);
const SKIPPED = /^(Anonymous|__anon)|^(TEST|IGNORE_TEST|TEST_F|TEST_P|TEST_SETUP|TEST_TEAR_DOWN|TEST_GROUP|TEST_GROUP_RUNNER)$/;

interface CtagsTag {
  _type: string;
  name: string;
  path: string;
  line: number;
  kind: string;
}

async function check(dir: string): Promise<void> {
  const files = mapFiles(new Workspace(dir)).filter((file) => languageOf(file.path));
  const index = await buildIndex(files);
  const mine = new Set<string>();
  const names: string[] = [];
  for (const [path, tags] of index.files) for (const definition of tags.definitions) (mine.add(`${path}:${definition.line}:${definition.name}`), names.push(definition.name));
  const run = Bun.spawnSync(["ctags", "--output-format=json", "--fields=+nK", "-f", "-", "-L", "-"], { cwd: dir, stdin: new TextEncoder().encode(files.map((file) => file.path).join("\n")) });
  const tags = run.stdout
    .toString()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as CtagsTag)
    .filter((tag) => tag._type === "tag" && KINDS.has(tag.kind) && !SKIPPED.test(tag.name));
  const found = tags.filter((tag) => mine.has(`${tag.path}:${tag.line}:${tag.name}`)).length;
  const languages = [...new Set(files.map((file) => languageOf(file.path)!.name))].join(", ");
  // References: 20 names spread over the definitions, long enough to be specific.
  const sample = [...new Set(names.filter((name) => name.length >= 6))].filter((_, at, all) => at % Math.max(1, Math.floor(all.length / 20)) === 0).slice(0, 20);
  let textual = 0;
  let matched = 0;
  for (const name of sample) {
    const uses = new Set((await findReferences(files, name)).map((hit) => `${hit.path}:${hit.line}`));
    const word = new RegExp(`\\b${name.replace(/[$]/g, "\\$")}\\b`);
    for (const file of files) {
      readFileSync(file.real, "utf8").split("\n").forEach((text, at) => {
        if (!word.test(text) || mine.has(`${file.path}:${at + 1}:${name}`)) return;
        textual++;
        if (uses.has(`${file.path}:${at + 1}`)) matched++;
      });
    }
  }
  console.log(`${dir.split("/").pop()} (${languages}): ${files.length} files; definitions: ${found} of ctags' ${tags.length} (${((100 * found) / Math.max(1, tags.length)).toFixed(0)}%), ${mine.size} in all; uses of ${sample.length} names: ${matched} of ${textual} lines with the word (${((100 * matched) / Math.max(1, textual)).toFixed(0)}%)`);
}

for (const dir of process.argv.slice(2)) await check(join(dir));
