import { lstatSync, realpathSync, statSync, type Stats } from "node:fs";
import { isAbsolute, join, normalize, relative, resolve as resolvePath, sep, dirname, basename } from "node:path";
import { Refusal } from "../protocol/refusal.ts";

/** Names no tool may touch, at any depth: secrets, history, and glassbox's own logs. */
export function isOffLimitsName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === ".env" || lower.startsWith(".env.") || lower === ".git" || lower === ".glassbox";
}

export interface ResolvedPath {
  /** Where the file really is, links resolved. Never shown to the model. */
  real: string;
  /** The real location relative to the workspace root: what the model and the rules see. */
  relative: string;
  /** null when nothing exists there yet (a file about to be written). */
  stats: Stats | null;
}

/**
 * The one folder the file tools may touch. Every path, whether the model gave it or a tool found
 * it walking the tree, goes through `resolve` or `confine`: links are followed to their real
 * location, which must lie inside the (itself resolved) root and must not be off limits.
 */
export class Workspace {
  readonly root: string;

  /**
   * `confined: false` exists for one purpose: `glassbox eval --replay` with
   * `experiment.disable_confinement`, to measure what confinement prevents. Nothing else sets it.
   */
  constructor(
    root: string,
    readonly confined = true,
  ) {
    this.root = realpathSync(root);
  }

  /** Resolves a path argument from the model. `argument` names it in refusals. */
  resolve(path: string, argument = "path"): ResolvedPath {
    if (path.includes("\0")) throw new Refusal(`Argument \`${argument}\` contains a NUL byte; send a plain relative path.`);
    if (this.confined && (isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path))) {
      throw new Refusal(`Argument \`${argument}\` must be relative to the workspace, not an absolute path.`);
    }
    const cleaned = normalize(path === "" ? "." : path);
    if (this.confined && (cleaned === ".." || cleaned.startsWith(".." + sep))) {
      throw new Refusal(`Argument \`${argument}\` points outside the workspace; use a path inside it.`);
    }
    this.refuseOffLimits(cleaned, argument);
    return this.confine(resolvePath(this.root, cleaned), argument);
  }

  /** Confines an absolute location (a tool's own discovery, or a resolved argument). */
  confine(location: string, argument = "path"): ResolvedPath {
    const { real, exists, underFile } = realLocation(location, argument);
    const rel = relative(this.root, real);
    if (this.confined && (rel === ".." || rel.startsWith(".." + sep) || isAbsolute(rel))) {
      throw new Refusal(`Argument \`${argument}\` leads outside the workspace through a link; use a path inside it.`);
    }
    this.refuseOffLimits(rel, argument);
    if (underFile) throw new Refusal(`Argument \`${argument}\` goes through a file as if it were a folder; list_files shows what exists.`);
    return { real, relative: rel === "" ? "." : rel, stats: exists ? statSync(real) : null };
  }

  /** Whether a location found by walking the tree may be shown to the model. */
  admits(location: string): ResolvedPath | null {
    try {
      return this.confine(location);
    } catch (error) {
      if (error instanceof Refusal) return null;
      throw error;
    }
  }

  private refuseOffLimits(rel: string, argument: string): void {
    const hit = rel.split(/[\\/]/).find(isOffLimitsName);
    if (hit) throw new Refusal(`Argument \`${argument}\` names \`${hit}\`, which is off limits to every tool.`);
  }
}

/** realpath of the longest existing prefix, with the rest appended: new files resolve too. */
function realLocation(location: string, argument: string): { real: string; exists: boolean; underFile: boolean } {
  const missing: string[] = [];
  let current = location;
  for (;;) {
    let real: string;
    try {
      real = realpathSync(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ELOOP") throw new Refusal(`Argument \`${argument}\` goes through a link loop; use another path.`);
      if (code === "ENAMETOOLONG") throw new Refusal(`Argument \`${argument}\` has a name too long for the file system; use a shorter path.`);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      // A dangling link would be followed by a write: where it leads cannot be checked, so refuse.
      if (isLink(current)) throw new Refusal(`Argument \`${argument}\` goes through a link that leads nowhere; use another path.`);
      const parent = dirname(current);
      if (parent === current) throw error;
      missing.push(basename(current));
      current = parent;
      continue;
    }
    return {
      real: missing.length ? join(real, ...missing.reverse()) : real,
      exists: missing.length === 0,
      // Something missing under a file: reading finds nothing there and writing would fail after approval.
      underFile: missing.length > 0 && !statSync(real).isDirectory(),
    };
  }
}

function isLink(location: string): boolean {
  try {
    return lstatSync(location).isSymbolicLink();
  } catch {
    return false;
  }
}
