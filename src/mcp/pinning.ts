import { canonicalJson } from "../protocol/canonical.ts";
import { describeHidden } from "../prompt/hidden.ts";
import type { Lock, LockedTool } from "../prompt/lock.ts";
import type { RawTool } from "./client.ts";

/** A tool's whole definition as the server sent it, canonical JSON, SHA-256: first 16 hex digits. */
export function toolDigest(definition: RawTool): string {
  return new Bun.CryptoHasher("sha256").update(canonicalJson(definition)).digest("hex").slice(0, 16);
}

export interface ListedTool extends LockedTool {
  definition: RawTool;
}

export type ToolFinding =
  | { kind: "ADDED"; name: string; digest: string }
  | { kind: "CHANGED"; name: string; old: string; new: string }
  | { kind: "REMOVED"; name: string };

/** A tool's standing against the lock: pinned (same digest), unpinned (no tools in the lock), or what changed. */
export type PinState = "pinned" | "unpinned" | "added" | "changed";

/**
 * Where a lock pins tools at all (a lock written before MCP does not), a tool is offered only
 * with the digest the lock holds: a changed one and a new one are both unreviewed prompt text.
 */
export function pinState(lock: Lock | null, name: string, digest: string): PinState {
  if (!lock?.tools) return "unpinned";
  const locked = lock.tools.find((tool) => tool.name === name);
  if (!locked) return "added";
  return locked.digest === digest ? "pinned" : "changed";
}

export function compareTools(lock: Lock, tools: readonly ListedTool[]): ToolFinding[] {
  const locked = lock.tools ?? [];
  const findings: ToolFinding[] = [];
  for (const tool of tools) {
    const old = locked.find((entry) => entry.name === tool.name);
    if (!old) findings.push({ kind: "ADDED", name: tool.name, digest: tool.digest });
    else if (old.digest !== tool.digest) findings.push({ kind: "CHANGED", name: tool.name, old: old.digest, new: tool.digest });
  }
  for (const old of locked) if (!tools.some((tool) => tool.name === old.name)) findings.push({ kind: "REMOVED", name: old.name });
  return findings;
}

export function formatToolFinding(finding: ToolFinding): string {
  switch (finding.kind) {
    case "ADDED":
      return `ADDED tool ${finding.name} ${finding.digest}`;
    case "CHANGED":
      return `CHANGED tool ${finding.name} ${finding.old} -> ${finding.new}`;
    case "REMOVED":
      return `REMOVED tool ${finding.name}`;
  }
}

/** "HIDDEN …" lines for every layer text or tool definition holding characters a reader cannot see. */
export function hiddenFindings(texts: ReadonlyArray<{ what: string; text: string }>): string[] {
  return texts.flatMap(({ what, text }) => {
    const hidden = describeHidden(text);
    return hidden ? [`HIDDEN ${what}: ${hidden}`] : [];
  });
}
