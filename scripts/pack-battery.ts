#!/usr/bin/env bun
/**
 * Packs `glassbox tune`'s battery: its task files and the projects and acceptance tests they
 * name, from evals/, into src/eval/battery.json.gz, so the binary carries them. Run after editing
 * a battery task or its project; test/eval/battery.test.ts fails until the pack matches evals/.
 *
 *   bun scripts/pack-battery.ts
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { batteryFilesIn } from "../src/eval/battery.ts";

const ROOT = join(import.meta.dir, "..");
const files = batteryFilesIn(join(ROOT, "evals"));
const json = JSON.stringify(files);
const gz = Bun.gzipSync(json, { level: 9 });
writeFileSync(join(ROOT, "src/eval/battery.json.gz"), gz);
console.log(`${Object.keys(files).length} files, ${json.length} bytes -> ${gz.length}`);
