import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { PARSE_ONCE } from "../protocol/zod-start.ts";
import base from "../../prompts/00-base.md" with { type: "text" };

/**
 * Where a layer came from: `builtin` (shipped in glassbox's prompts/), `file` (the workspace's
 * prompts/*.md), `workspace` (the workspace's AGENTS.md), `server` (a connected server's
 * instructions in servers.json).
 */
export type LayerOrigin = "builtin" | "file" | "workspace" | "server";

/** One named piece of the system prompt, with where it came from and a digest to pin it by. */
export interface PromptLayer {
  name: string;
  origin: LayerOrigin;
  text: string;
  /** SHA-256 of the text, first 16 hex digits. */
  digest: string;
  chars: number;
}

/** The shipped layers, embedded so the binary carries them, named by file name without `.md`. */
const BUILTIN: Record<string, string> = { "00-base": base };

/** A layer file bigger than this is refused: a prompt layer is guidance, not a data dump. */
const MAX_LAYER_BYTES = 64 * 1024;

const ServersSchema = z.array(
  // servers.json belongs to other tools too: keys other than these two are theirs, not errors.
  z.looseObject({ name: z.string().min(1), instructions: z.string().optional() }),
);

/** A problem with the workspace's layer sources, named so the user can fix it. */
export class LayerError extends Error {}

export function makeLayer(name: string, origin: LayerOrigin, text: string): PromptLayer {
  const clean = text.trimEnd();
  const digest = new Bun.CryptoHasher("sha256").update(clean).digest("hex").slice(0, 16);
  return { name, origin, text: clean, digest, chars: clean.length };
}

/**
 * Layer names in natural order: runs of digits compare as numbers (2-x before 10-y), everything
 * else by code unit. Not `localeCompare`: the order must not depend on the machine's ICU, and a
 * collator costs 1.4 MiB of resident memory at every start.
 */
export function byName(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (isDigit(a, i) && isDigit(b, j)) {
      const [endA, endB] = [digitsEnd(a, i), digitsEnd(b, j)];
      // As digit strings without leading zeros (shorter is smaller), so any length compares.
      const [x, y] = [a.slice(i, endA).replace(/^0+(?=\d)/, ""), b.slice(j, endB).replace(/^0+(?=\d)/, "")];
      if (x.length !== y.length) return x.length - y.length;
      if (x !== y) return x < y ? -1 : 1;
      [i, j] = [endA, endB];
    } else {
      if (a[i] !== b[j]) return a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
  }
  // One ran out first; names equal but for leading zeros still get a fixed order.
  return a.length - i - (b.length - j) || (a < b ? -1 : a > b ? 1 : 0);
}

const isDigit = (text: string, at: number) => text.charCodeAt(at) >= 48 && text.charCodeAt(at) <= 57;

function digitsEnd(text: string, from: number): number {
  let end = from;
  while (isDigit(text, end)) end++;
  return end;
}

export function builtinLayers(): PromptLayer[] {
  return Object.keys(BUILTIN)
    .sort(byName)
    .map((name) => makeLayer(name, "builtin", BUILTIN[name]!));
}

/**
 * Every layer, in order: glassbox's prompts/*.md and the workspace's prompts/*.md by name (a
 * workspace file with a shipped file's name replaces it in place), then AGENTS.md, then each
 * connected server's instructions. Empty texts contribute no layer.
 */
export function collectLayers(workspaceRoot: string | null): PromptLayer[] {
  const files = new Map(builtinLayers().map((layer) => [layer.name, layer]));
  if (workspaceRoot) {
    const folder = join(workspaceRoot, "prompts");
    if (existsSync(folder) && statSync(folder).isDirectory()) {
      for (const name of readdirSync(folder).filter((file) => file.endsWith(".md"))) {
        files.set(name.slice(0, -3), makeLayer(name.slice(0, -3), "file", readLayerFile(join(folder, name), `prompts/${name}`)));
      }
    }
  }
  const layers = [...files.values()].sort((a, b) => byName(a.name, b.name));
  if (workspaceRoot) {
    const agents = join(workspaceRoot, "AGENTS.md");
    if (existsSync(agents)) layers.push(makeLayer("AGENTS.md", "workspace", readLayerFile(agents, "AGENTS.md")));
    for (const server of readServers(workspaceRoot)) {
      if (server.instructions?.trim()) layers.push(makeLayer(`server:${server.name}`, "server", server.instructions));
    }
  }
  return layers.filter((layer) => layer.chars > 0);
}

/** The system prompt: the layers joined by a blank line, byte-identical on every call. */
export function assemble(layers: readonly PromptLayer[]): string {
  return layers.map((layer) => layer.text).join("\n\n");
}

/** The same text for a person: each layer's boundary marked (the model gets the plain join). */
export function assembleMarked(layers: readonly PromptLayer[]): string {
  const marked = layers.map((layer) => `──── layer ${layer.name} (${layer.origin}, ${layer.digest}, ${layer.chars} chars) ────\n${layer.text}`);
  return `${marked.join("\n\n")}\n──── end of system prompt (${assemble(layers).length} chars) ────`;
}

function readLayerFile(path: string, shown: string): string {
  const size = statSync(path).size;
  if (size > MAX_LAYER_BYTES) throw new LayerError(`${shown} is ${size} bytes; a prompt layer may be at most ${MAX_LAYER_BYTES} bytes`);
  return readFileSync(path, "utf8");
}

function readServers(workspaceRoot: string): Array<{ name: string; instructions?: string }> {
  const path = join(workspaceRoot, "servers.json");
  if (!existsSync(path)) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new LayerError(`servers.json is not valid JSON (${(error as Error).message}); fix or remove it`);
  }
  const parsed = ServersSchema.safeParse(raw, PARSE_ONCE);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new LayerError(`servers.json: ${issue.path.join(".") || "the file"} ${issue.message}; expected [{"name": …, "instructions": …}]`);
  }
  return parsed.data;
}
