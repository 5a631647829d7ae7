// The tags of every file the map is given, cached under `.glassbox/map/` by each file's digest:
// a file whose size and modification time are unchanged is not even read again, one whose digest
// is unchanged is not parsed again, a changed one alone is parsed again.
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { glassboxFolder, makeGlassboxFolder } from "../platform/glassbox-folder.ts";
import { languageOf } from "./languages.ts";
import { readTags, type FileTags } from "./tags.ts";

/** A file to map: its workspace-relative POSIX path and where it really is. */
export interface MapFile {
  path: string;
  real: string;
}

interface CachedFile {
  digest: string;
  size: number;
  mtimeMs: number;
  tags: FileTags;
}

/** Bump when the queries or the tags' shape change: an old cache is then read as empty. */
const CACHE_VERSION = 8;
const CACHE_NAME = "tags.json";
/** Files parsed between two turns of the event loop. */
const YIELD_EVERY = 20;
/** Larger files are generated or minified: no reading for a map. */
export const MAX_MAPPED_BYTES = 512 * 1024;

export interface CodeIndex {
  /** Path → tags, for every mapped file, in the order the files were given. */
  files: Map<string, FileTags>;
  /** How many files were parsed to build it (0 when the cache held them all). */
  parsed: number;
  /** A digest of every file's path and digest: equal fingerprints, equal index. */
  fingerprint: string;
}

export interface IndexOptions {
  /** The workspace root: the cache lives in its `.glassbox/map/`. Absent: no cache. */
  cacheRoot?: string;
}

/** The tags of every file in `files` whose language the map parses. */
export async function buildIndex(files: MapFile[], options: IndexOptions = {}): Promise<CodeIndex> {
  const cachePath = options.cacheRoot ? glassboxFolder(options.cacheRoot, "map", CACHE_NAME) : undefined;
  const cached = cachePath ? readCache(cachePath) : {};
  const next: Record<string, CachedFile> = {};
  const index: CodeIndex = { files: new Map(), parsed: 0, fingerprint: "" };
  const hasher = new Bun.CryptoHasher("sha256").update(`v${CACHE_VERSION}\n`);
  let changed = false;
  for (const file of files) {
    const spec = languageOf(file.path);
    if (!spec) continue;
    const entry = await entryFor(file, spec, cached[file.path], index);
    if (!entry) continue;
    if (entry !== cached[file.path]) changed = true;
    next[file.path] = entry;
    index.files.set(file.path, entry.tags);
    hasher.update(`${file.path}\0${entry.digest}\n`);
  }
  index.fingerprint = hasher.digest("hex").slice(0, 32);
  if (cachePath && (changed || Object.keys(cached).length !== Object.keys(next).length)) writeCache(cachePath, next);
  return index;
}

async function entryFor(file: MapFile, spec: NonNullable<ReturnType<typeof languageOf>>, before: CachedFile | undefined, index: CodeIndex): Promise<CachedFile | undefined> {
  let stats;
  try {
    stats = statSync(file.real);
  } catch {
    return undefined;
  }
  if (!stats.isFile() || stats.size > MAX_MAPPED_BYTES) return undefined;
  if (before && before.size === stats.size && before.mtimeMs === stats.mtimeMs) return before;
  let bytes: Buffer;
  try {
    bytes = readFileSync(file.real);
  } catch {
    return undefined;
  }
  if (bytes.includes(0)) return undefined;
  const digest = Bun.hash(bytes).toString(16);
  if (before && before.digest === digest) return { ...before, size: stats.size, mtimeMs: stats.mtimeMs };
  // Parsing is synchronous: every few files the event loop gets a turn (the TUI keeps drawing, Esc is heard).
  if (++index.parsed % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
  return { digest, size: stats.size, mtimeMs: stats.mtimeMs, tags: await readTags(spec, bytes.toString("utf8")) };
}

const RENDERED_NAME = "last-map.json";

/** The map last rendered in this workspace, when it was rendered for this same key (index fingerprint and request). */
export function readRendered(cacheRoot: string, key: string): string | undefined {
  try {
    const saved = JSON.parse(readFileSync(glassboxFolder(cacheRoot, "map", RENDERED_NAME), "utf8")) as { key?: string; text?: string };
    return saved.key === key && typeof saved.text === "string" ? saved.text : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps one rendered map, so an unchanged repository asked the same again skips the ranking too. */
export function writeRendered(cacheRoot: string, key: string, text: string): void {
  writeWhole(glassboxFolder(cacheRoot, "map", RENDERED_NAME), JSON.stringify({ key, text }));
}

function readCache(path: string): Record<string, CachedFile> {
  if (!existsSync(path)) return {};
  try {
    const saved = JSON.parse(readFileSync(path, "utf8")) as { version?: number; files?: Record<string, CachedFile> };
    return saved.version === CACHE_VERSION && saved.files && typeof saved.files === "object" ? saved.files : {};
  } catch {
    return {};
  }
}

/** Written whole to a temporary name and renamed, so a reader never sees half a cache. A failed write only costs the next run a parse. */
function writeCache(path: string, files: Record<string, CachedFile>): void {
  writeWhole(path, JSON.stringify({ version: CACHE_VERSION, files }));
}

function writeWhole(path: string, text: string): void {
  try {
    makeGlassboxFolder(join(path, ".."));
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch {
    // A read-only or full disk: the map is still built, only not kept.
  }
}
