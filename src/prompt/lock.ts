import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { PARSE_ONCE, builtOnFirstParse } from "../protocol/zod-start.ts";
import type { LayerOrigin, PromptLayer } from "./layers.ts";

export const LOCK_FILE = "prompts.lock";

const LockSchema = builtOnFirstParse(() =>
  z
    .object({
      version: z.literal(1),
      layers: z.array(z.object({ name: z.string(), origin: z.enum(["builtin", "file", "workspace", "server"]), digest: z.string() }).strict()),
      /** Each MCP tool's whole definition, pinned by digest (absent in locks written before MCP). */
      tools: z.array(z.object({ name: z.string(), server: z.string(), digest: z.string() }).strict()).optional(),
    })
    .strict(),
);

export type Lock = z.infer<typeof LockSchema>;
export type LockedTool = NonNullable<Lock["tools"]>[number];

export type Finding =
  | { kind: "ADDED"; name: string; origin: LayerOrigin; digest: string }
  | { kind: "CHANGED"; name: string; origin: LayerOrigin; old: string; new: string }
  | { kind: "REMOVED"; name: string }
  /** The same text under a new source: `from` names the layer it was before when the name changed too. */
  | { kind: "ORIGIN"; name: string; old: LayerOrigin; new: LayerOrigin; from?: string }
  | { kind: "REORDERED"; old: string[]; new: string[] };

export function lockPath(workspaceRoot: string): string {
  return join(workspaceRoot, LOCK_FILE);
}

/** The lock's text for a set of layers: name, origin and digest, in order. */
export function lockText(layers: readonly PromptLayer[], tools?: readonly LockedTool[]): string {
  const lock: Lock = { version: 1, layers: layers.map(({ name, origin, digest }) => ({ name, origin, digest })), ...(tools ? { tools: tools.map(({ name, server, digest }) => ({ name, server, digest })) } : {}) };
  return JSON.stringify(lock, null, 2) + "\n";
}

/** null when there is no lock; throws with a readable reason when the file is broken. */
export function readLock(workspaceRoot: string): Lock | null {
  const path = lockPath(workspaceRoot);
  if (!existsSync(path)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`${LOCK_FILE} is not valid JSON (${(error as Error).message}); rewrite it with glassbox audit --write-lock`);
  }
  const parsed = LockSchema.safeParse(raw, PARSE_ONCE);
  if (!parsed.success) throw new Error(`${LOCK_FILE} is not a glassbox prompt lock (${parsed.error.issues[0]!.message}); rewrite it with glassbox audit --write-lock`);
  return parsed.data;
}

/**
 * What changed between the lock and the current layers. A reordering is reported only when
 * nothing else was found: any other change already fails the check and says more.
 */
export function compareToLock(lock: Lock, layers: readonly PromptLayer[]): Finding[] {
  const locked = new Map(lock.layers.map((layer) => [layer.name, layer]));
  const current = new Map(layers.map((layer) => [layer.name, layer]));
  const findings: Finding[] = [];
  for (const layer of layers) {
    const old = locked.get(layer.name);
    if (!old) findings.push({ kind: "ADDED", name: layer.name, origin: layer.origin, digest: layer.digest });
    else if (old.digest !== layer.digest) findings.push({ kind: "CHANGED", name: layer.name, origin: layer.origin, old: old.digest, new: layer.digest });
    else if (old.origin !== layer.origin) findings.push({ kind: "ORIGIN", name: layer.name, old: old.origin, new: layer.origin });
  }
  for (const old of lock.layers) if (!current.has(old.name)) findings.push({ kind: "REMOVED", name: old.name });
  movedText(findings, lock);
  if (findings.length === 0) {
    const oldOrder = lock.layers.map((layer) => layer.name);
    const newOrder = layers.map((layer) => layer.name);
    if (oldOrder.join("\u0000") !== newOrder.join("\u0000")) findings.push({ kind: "REORDERED", old: oldOrder, new: newOrder });
  }
  return findings;
}

/** A layer removed and one added with the same text is that text moving between sources: one ORIGIN finding. */
function movedText(findings: Finding[], lock: Lock): void {
  for (const added of findings.filter((finding) => finding.kind === "ADDED")) {
    const removedAt = findings.findIndex((finding) => finding.kind === "REMOVED" && lock.layers.find((layer) => layer.name === finding.name)?.digest === added.digest);
    if (removedAt < 0) continue;
    const removed = lock.layers.find((layer) => layer.name === (findings[removedAt] as { name: string }).name)!;
    findings.splice(removedAt, 1);
    findings.splice(findings.indexOf(added), 1, { kind: "ORIGIN", name: added.name, old: removed.origin, new: added.origin, from: removed.name });
  }
}

export function formatFinding(finding: Finding): string {
  switch (finding.kind) {
    case "ADDED":
      return `ADDED ${finding.name} (${finding.origin}) ${finding.digest}`;
    case "CHANGED":
      return `CHANGED ${finding.name} (${finding.origin}) ${finding.old} -> ${finding.new}`;
    case "REMOVED":
      return `REMOVED ${finding.name}`;
    case "ORIGIN":
      return `ORIGIN ${finding.name} ${finding.old} -> ${finding.new}${finding.from ? ` (was ${finding.from})` : ""}`;
    case "REORDERED":
      return `REORDERED ${finding.old.join(", ")} -> ${finding.new.join(", ")}`;
  }
}

/** Each layer's state against the lock, for the layers pane. */
export function layerStates(lock: Lock | null, layers: readonly PromptLayer[]): Array<"locked" | "unlocked" | "added" | "changed"> {
  if (!lock) return layers.map(() => "unlocked");
  const locked = new Map(lock.layers.map((layer) => [layer.name, layer]));
  return layers.map((layer) => {
    const old = locked.get(layer.name);
    if (!old) return "added";
    return old.digest === layer.digest && old.origin === layer.origin ? "locked" : "changed";
  });
}
