import { readdirSync, statSync, type Dirent } from "node:fs";
import { basename, join } from "node:path";
import type { Candidate, UnusableFile } from "./discovery.ts";
import { GgufError, readGgufHeader, type GgufInfo } from "./gguf.ts";

/**
 * GGUF files on this machine, for the model picker: where llama.cpp (`-hf`), LM Studio and people
 * themselves usually keep them, each with its size and trained window read from its header. A
 * file whose header fails the check is named with the reason: a download cut short is exactly
 * what its owner wants to hear about before picking it.
 */

/** The folders looked in, under the home folder. */
export const GGUF_FOLDERS = [".cache/llama.cpp", ".lmstudio/models", "models"] as const;

/** How far the scan goes, so a huge folder cannot stall the picker. */
export interface ScanLimits {
  /** Folder levels below each folder of GGUF_FOLDERS (LM Studio's is models/PUBLISHER/REPO/FILE). */
  depth: number;
  /** Directory entries looked at per folder. */
  entries: number;
  /** GGUF files read, all folders together. */
  files: number;
}

export const SCAN_LIMITS: ScanLimits = { depth: 4, entries: 2000, files: 40 };

export interface GgufFiles {
  candidates: Candidate[];
  unusable: UnusableFile[];
}

/** A split model's later parts (`-00002-of-00003.gguf`): llama-server loads them from the first. */
const LATER_SPLIT_PART = /-(?!0+1-)\d{5}-of-\d{5}\.gguf$/i;
/** A vision projector (mmproj), not a model one can talk to. */
const PROJECTOR_ARCHITECTURE = "clip";

export async function findGgufFiles(home: string, limits: ScanLimits = SCAN_LIMITS): Promise<GgufFiles> {
  const found: GgufFiles = { candidates: [], unusable: [] };
  const paths = GGUF_FOLDERS.flatMap((folder) => ggufPaths(join(home, folder), limits)).slice(0, limits.files);
  for (const path of paths) {
    const header = cachedHeader(path);
    if ("problem" in header) found.unusable.push({ path, problem: header.problem });
    else if (header.architecture !== PROJECTOR_ARCHITECTURE) found.candidates.push(fileCandidate(path, header));
    // A header is a few milliseconds of reading: the picker draws between files.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return found;
}

function fileCandidate(path: string, info: GgufInfo): Candidate {
  return { server: "gguf", spec: `gguf:${path}`, name: basename(path), baseUrl: path, size: info.sizeBytes, contextLength: info.contextLength, tools: null };
}

/** The .gguf files under `root`, breadth first, in name order, within the limits; a folder that cannot be read is skipped. */
function ggufPaths(root: string, limits: ScanLimits): string[] {
  const paths: string[] = [];
  let folders = [root];
  let entries = 0;
  for (let depth = 0; depth <= limits.depth && folders.length; depth++) {
    const deeper: string[] = [];
    for (const folder of folders) {
      for (const entry of listing(folder)) {
        if (++entries > limits.entries || paths.length >= limits.files) return paths;
        const path = join(folder, entry.name);
        if (entry.isDirectory() && !entry.name.startsWith(".")) deeper.push(path);
        else if (/\.gguf$/i.test(entry.name) && !LATER_SPLIT_PART.test(entry.name) && isFile(entry, path)) paths.push(path);
      }
    }
    folders = deeper;
  }
  return paths;
}

function listing(folder: string): Dirent[] {
  try {
    return readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/** A file, or a link to one (model managers link files into place); links to folders are not followed, so a loop cannot be. */
function isFile(entry: Dirent, path: string): boolean {
  if (entry.isFile()) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

type Header = GgufInfo | { problem: string };

/** Headers already read, by path, size and modification time: the picker asks again each time it opens. */
const headers = new Map<string, { stamp: string; header: Header }>();

function cachedHeader(path: string): Header {
  let stamp: string;
  try {
    const stats = statSync(path);
    stamp = `${stats.size}:${stats.mtimeMs}`;
  } catch (error) {
    return { problem: unreadable(error) };
  }
  const known = headers.get(path);
  if (known?.stamp === stamp) return known.header;
  const header = readHeader(path);
  headers.set(path, { stamp, header });
  return header;
}

function readHeader(path: string): Header {
  try {
    return readGgufHeader(path);
  } catch (error) {
    return { problem: error instanceof GgufError ? error.message : unreadable(error) };
  }
}

function unreadable(error: unknown): string {
  return `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
}
