import { writeFileSync } from "node:fs";
import { assemble, type PromptLayer } from "../prompt/layers.ts";
import { compareToLock, formatFinding, LOCK_FILE, lockPath, lockText, readLock } from "../prompt/lock.ts";
import type { CliArgs } from "./args.ts";
import { workspaceRoot } from "../session/workspace-root.ts";
import { workspaceLayers } from "../session/session.ts";

/**
 * `glassbox audit`: the prompt-layer inventory. --check exits 1 with one line per finding when
 * the layers drifted from prompts.lock; --write-lock pins the current layers.
 */
export function audit(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): number {
  const root = workspaceRoot(args.workspace);
  const layers = workspaceLayers(root);
  switch (args.auditMode) {
    case "write-lock":
      writeFileSync(lockPath(root), lockText(layers));
      out(`wrote ${LOCK_FILE}: ${layers.length} layers`);
      for (const layer of layers) out(`  ${layer.name} (${layer.origin}) ${layer.digest}`);
      return 0;
    case "check": {
      let lock;
      try {
        lock = readLock(root);
      } catch (error) {
        out((error as Error).message);
        return 1;
      }
      if (!lock) {
        out(`no ${LOCK_FILE} in the workspace: read the layers (glassbox audit --print), then pin them with glassbox audit --write-lock`);
        return 1;
      }
      const findings = compareToLock(lock, layers);
      for (const finding of findings) out(formatFinding(finding));
      if (findings.length === 0) out(`${LOCK_FILE} matches: ${layers.length} layers`);
      return findings.length ? 1 : 0;
    }
    case "print":
      layerTable(layers, out);
      out("");
      out(assemble(layers));
      return 0;
    default:
      layerTable(layers, out);
      return 0;
  }
}

/** One row per layer (name, origin, digest, size) and a total. */
export function layerTable(layers: PromptLayer[], out: (line: string) => void): void {
  const rows = [["name", "origin", "digest", "chars"], ...layers.map((layer) => [layer.name, layer.origin, layer.digest, String(layer.chars)])];
  rows.push(["total", `${layers.length} layers`, "", String(layers.reduce((sum, layer) => sum + layer.chars, 0))]);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) out(row.map((cell, column) => (column === 3 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join("  ").trimEnd());
}
