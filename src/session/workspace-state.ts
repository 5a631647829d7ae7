import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { glassboxFolder, makeGlassboxFolder } from "../platform/glassbox-folder.ts";
import { z } from "zod";
import { PARSE_ONCE, builtOnFirstParse } from "../protocol/zod-start.ts";
import type { Candidate } from "../model/discovery.ts";

/** What glassbox remembers about a workspace between starts. Other keys are kept as they are. */
const StateSchema = builtOnFirstParse(() =>
  z
    .object({
      /** The model picked in the TUI: used next time, without asking, while it still answers. */
      model: z.object({ spec: z.string().min(1), name: z.string().min(1), chosen_at: z.string() }).optional(),
    })
    .passthrough(),
);

type State = z.infer<typeof StateSchema>;

export function statePath(workspaceRoot: string): string {
  return glassboxFolder(workspaceRoot, "state.json");
}

/**
 * The saved state; empty when there is none. A file that is not valid state is treated as empty
 * (it only holds conveniences, and the next choice rewrites it).
 */
export function readState(workspaceRoot: string): State {
  try {
    const parsed = StateSchema.safeParse(JSON.parse(readFileSync(statePath(workspaceRoot), "utf8")), PARSE_ONCE);
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** Remembers the picked model, keeping whatever else the file holds; written whole through a rename. */
export function rememberModel(workspaceRoot: string, candidate: Candidate, now: number): void {
  const path = statePath(workspaceRoot);
  const state = { ...readState(workspaceRoot), model: { spec: candidate.spec, name: candidate.name, chosen_at: new Date(now).toISOString() } };
  makeGlassboxFolder(dirname(path));
  writeFileSync(`${path}.tmp`, JSON.stringify(state, null, 2) + "\n");
  renameSync(`${path}.tmp`, path);
}

/** The remembered model, if it is among what answers now (the same spec serving the same model). */
export function rememberedCandidate(workspaceRoot: string, candidates: Candidate[]): Candidate | null {
  const remembered = readState(workspaceRoot).model;
  if (!remembered) return null;
  return candidates.find((candidate) => candidate.spec === remembered.spec && candidate.name === remembered.name) ?? null;
}
