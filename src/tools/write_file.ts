import { z } from "zod";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, basename } from "node:path";
import { defineTool, Refusal, type ToolContext } from "./tool.ts";
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
  replaceWhole(file.real, (temporary) => writeFileSync(temporary, content));
}

/** Fills a temporary file beside `real`, then renames it over `real`: readers see the old file or the new one, never half. */
export function replaceWhole(real: string, fill: (temporary: string) => void): void {
  mkdirSync(dirname(real), { recursive: true });
  const temporary = join(dirname(real), `.${basename(real)}.glassbox-${process.pid}.tmp`);
  fill(temporary);
  renameSync(temporary, real);
}

/** Writes a file for a tool, first saving what was there in the run's undo journal (when the run keeps one). */
export function writeUndoable(context: ToolContext, tool: string, file: ResolvedPath, content: string): void {
  const saved = context.journal?.saveBefore(tool, file, content);
  try {
    writeWhole(file, content);
  } catch (error) {
    saved?.failed();
    throw error;
  }
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
  async plan(args, context) {
    const { workspace } = context;
    const file = workspace.resolve(args.path);
    if (file.stats && !file.stats.isFile()) throw new Refusal(`Argument \`path\`: \`${file.relative}\` exists and is not a regular file.`);
    return {
      target: file.relative,
      change: { path: file.relative, before: currentText(file), after: args.content },
      async execute() {
        stillResolvesTo(workspace, args.path, file);
        writeUndoable(context, "write_file", file, args.content);
        return `${file.stats ? "Replaced" : "Created"} ${file.relative} (${args.content.length} characters).`;
      },
    };
  },
});
