#!/usr/bin/env bun
/**
 * The map on a real repository, zod's, with a pnpm-style node_modules present (and ignored):
 * built cold (no .glassbox/map/) and warm (the cache there, nothing changed), each in a fresh
 * process as `glassbox map` would: time, peak memory, files and definitions, and whether the map
 * fits its budget; beside Universal Ctags over the same files (a yardstick, where installed); and
 * how much the grammars add to the binary.
 *
 *   bun scripts/bench-map.ts ZOD     ZOD: a checkout of github.com/colinhacks/zod, or its git folder
 *                                    (default: $GLASSBOX_BENCH_ZOD)
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Workspace } from "../src/files/workspace.ts";
import { mapFiles } from "../src/tools/map-files.ts";
import { repoMap } from "../src/map/repo-map.ts";
import { buildIndex } from "../src/map/code-index.ts";
import { estimateTokens } from "../src/map/render.ts";
import { LANGUAGES, RUNTIME_WASM, languageOf } from "../src/map/languages.ts";

const ROOT = join(import.meta.dir, "..");
const RUNS = 3;
const TOKENS = [1024, 4096];
const TARGET_COLD_S = 5;
const TARGET_WARM_S = 0.3;

interface ChildResult {
  ms: number;
  maxRssKb: number;
  files: number;
  definitions: number;
  tokens: number;
  budget: number;
}

/** In a fresh process: the map as `glassbox map --tokens N` builds it, timed from the walk to the text. */
async function child(root: string, budget: number): Promise<void> {
  const started = performance.now();
  const workspace = new Workspace(root);
  const files = mapFiles(workspace);
  const map = await repoMap(files, { cacheRoot: root, tokens: budget });
  const ms = performance.now() - started;
  const index = await buildIndex(files, { cacheRoot: root });
  let definitions = 0;
  for (const tags of index.files.values()) definitions += tags.definitions.length;
  const result: ChildResult = { ms, maxRssKb: process.resourceUsage().maxRSS, files: index.files.size, definitions, tokens: estimateTokens(map), budget };
  console.log(JSON.stringify(result));
}

/** cold: no cache; ranked: the tags cached, the map ranked again (another focus, a new run's files); warm: nothing changed, the same request. */
type Start = "cold" | "ranked" | "warm";

function runChild(root: string, budget: number, start: Start): ChildResult & { wallMs: number } {
  const cold = start === "cold";
  if (cold) rmSync(join(root, ".glassbox"), { recursive: true, force: true });
  if (start === "ranked") rmSync(join(root, ".glassbox", "map", "last-map.json"), { force: true });
  const started = performance.now();
  const run = Bun.spawnSync([process.execPath, import.meta.path, "--child", root, String(budget)], { stdout: "pipe", stderr: "pipe" });
  const wallMs = performance.now() - started;
  if (run.exitCode !== 0) throw new Error(`the map's child failed: ${run.stderr.toString()}`);
  return { ...(JSON.parse(run.stdout.toString().trim().split("\n").at(-1)!) as ChildResult), wallMs };
}

/** zod's tree in a temporary folder (from a checkout, or `git archive` of a git folder), with node_modules as pnpm lays it out. */
function prepare(source: string): string {
  const root = mkdtempSync(join(tmpdir(), "glassbox-bench-map-"));
  if (existsSync(join(source, "HEAD")) && existsSync(join(source, "objects"))) {
    const archive = Bun.spawnSync(["sh", "-c", `git --git-dir="${source}" archive HEAD | tar -x -C "${root}"`], { stderr: "pipe" });
    if (archive.exitCode !== 0) throw new Error(`git archive failed: ${archive.stderr.toString()}`);
  } else {
    cpSync(source, root, { recursive: true, filter: (path) => !/[\\/](node_modules|\.git)$/.test(path) });
  }
  // pnpm: a store under node_modules/.pnpm and a node_modules in each package. Real TypeScript
  // sources, so that a walk that entered them would show.
  for (const modules of ["node_modules/.pnpm/typescript@5/node_modules/typescript", "packages/zod/node_modules/typescript"]) {
    mkdirSync(join(root, modules), { recursive: true });
    cpSync(join(ROOT, "node_modules/typescript/lib"), join(root, modules, "lib"), { recursive: true });
  }
  return root;
}

function ctags(root: string, files: string[]): { seconds: number; maxRssKb: number; tags: number } | null {
  if (Bun.spawnSync(["sh", "-c", "command -v ctags"]).exitCode !== 0) return null;
  const list = join(root, ".bench-ctags-files");
  writeFileSync(list, files.join("\n") + "\n");
  const out = join(tmpdir(), `glassbox-bench-ctags-${process.pid}`);
  const run = Bun.spawnSync(["/usr/bin/time", "-f", "%e %M", "ctags", "-f", out, "-L", list], { cwd: root, stderr: "pipe" });
  const [seconds, maxRssKb] = run.stderr.toString().trim().split("\n").at(-1)!.split(" ").map(Number);
  const tags = readFileSync(out, "utf8").split("\n").filter((line) => line && !line.startsWith("!_")).length;
  rmSync(out, { force: true });
  rmSync(list, { force: true });
  return { seconds: seconds!, maxRssKb: maxRssKb!, tags };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const source = process.argv[2] ?? process.env.GLASSBOX_BENCH_ZOD;
  if (!source || !existsSync(source)) {
    console.error("usage: bun scripts/bench-map.ts ZOD (a checkout of colinhacks/zod or its git folder; or set GLASSBOX_BENCH_ZOD)");
    process.exit(2);
  }
  const root = prepare(source);
  try {
    console.log(`machine: ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}; ${RUNS} runs each, median`);
    const mapped = mapFiles(new Workspace(root)).filter((file) => languageOf(file.path)).map((file) => file.path);
    for (const budget of TOKENS) {
      const cold = Array.from({ length: RUNS }, () => runChild(root, budget, "cold"));
      const ranked = Array.from({ length: RUNS }, () => runChild(root, budget, "ranked"));
      const warm = Array.from({ length: RUNS }, () => runChild(root, budget, "warm"));
      const first = cold[0]!;
      console.log(`map at ${budget} tokens: ${first.files} files, ${first.definitions} definitions; the map ${first.tokens} tokens (${first.tokens <= budget ? "fits" : "OVER"} its budget)`);
      for (const [label, runs, target] of [["cold", cold, TARGET_COLD_S], ["warm, ranked again", ranked, TARGET_WARM_S], ["warm", warm, TARGET_WARM_S]] as const) {
        const ms = median(runs.map((run) => run.ms));
        console.log(`  ${label}: ${(ms / 1000).toFixed(2)} s to the map (${(median(runs.map((run) => run.wallMs)) / 1000).toFixed(2)} s for the whole process), peak ${(median(runs.map((run) => run.maxRssKb)) / 1024).toFixed(0)} MB; target ≤ ${target} s: ${ms / 1000 <= target ? "met" : "MISSED"}`);
      }
    }
    const yardstick = ctags(root, mapped);
    if (yardstick) console.log(`ctags (Universal Ctags) over the same ${mapped.length} files: ${yardstick.seconds.toFixed(2)} s, peak ${(yardstick.maxRssKb / 1024).toFixed(0)} MB, ${yardstick.tags} tags`);
    else console.log("ctags: not installed, no yardstick");
    const packed = [...new Set(LANGUAGES.map((language) => language.wasm))];
    const bytes = statSync(RUNTIME_WASM).size + packed.reduce((sum, path) => sum + statSync(path).size, 0);
    console.log(`grammars in the binary: ${(bytes / 1024 / 1024).toFixed(1)} MB (the runtime's wasm and ${packed.length} grammars, gzipped)`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") await child(process.argv[3]!, Number(process.argv[4]));
else await main();
