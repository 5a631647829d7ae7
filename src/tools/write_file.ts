import { z } from "zod";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, basename } from "node:path";
import { defineTool, Refusal } from "./tool.ts";
import { readSmallText } from "./files.ts";
import type { ResolvedPath, Workspace } from "./workspace.ts";

/**
 * Resolves the path again right before writing: approval can take minutes, and a folder swapped
 * for a link meanwhile must not carry the write somewhere preflight never checked.
 */
export function stillResolvesTo(workspace: Workspace, path: string, planned: ResolvedPath): void {
  const now = workspace.resolve(path);
  if (now.real !== planned.real) throw new Refusal(`Argument \`path\`: where \`${planned.relative}\` leads changed while the call waited for approval; make the call again.`);
}

/** Writes through a temporary file and a rename, so a crash never leaves half a file. */
export function writeWhole(file: ResolvedPath, content: string): void {
  mkdirSync(dirname(file.real), { recursive: true });
  const temporary = join(dirname(file.real), `.${basename(file.real)}.glassbox-${process.pid}.tmp`);
  writeFileSync(temporary, content);
  renameSync(temporary, file.real);
}

/** What a file holds now, for the approval diff; null when new, binary or too large to show. */
function currentText(file: ResolvedPath): string | null {
  if (!file.stats) return null;
  try {
    return readSmallText(file, MAX_DIFF_BYTES);
  } catch {
    return null;
  }
}

const MAX_DIFF_BYTES = 1024 * 1024;

export const writeFile = defineTool({
  name: "write_file",
  description:
    "Create a file, or replace a whole file, in the workspace. Needs the user's approval. " +
    "To change part of an existing file, prefer edit_file.",
  schema: z
    .object({
      path: z.string().min(1).max(1000).describe("File path relative to the workspace root"),
      content: z.string().max(1_000_000).describe("The complete new content of the file"),
    })
    .strict(),
  needsApproval: true,
  async plan(args, { workspace }) {
    const file = workspace.resolve(args.path);
    if (file.stats && !file.stats.isFile()) throw new Refusal(`Argument \`path\`: \`${file.relative}\` exists and is not a regular file.`);
    return {
      target: file.relative,
      change: { path: file.relative, before: currentText(file), after: args.content },
      async execute() {
        stillResolvesTo(workspace, args.path, file);
        writeWhole(file, args.content);
        return `${file.stats ? "Replaced" : "Created"} ${file.relative} (${args.content.length} characters).`;
      },
    };
  },
});
