import { openSync, readSync, closeSync } from "node:fs";
import { Refusal } from "../protocol/refusal.ts";
import type { ResolvedPath } from "./workspace.ts";

const CHUNK_BYTES = 64 * 1024;

/** Only regular files are opened: a FIFO, device or socket could hang a read or never end. */
export function requireRegularFile(file: ResolvedPath, argument = "path"): void {
  if (!file.stats) throw new Refusal(`Argument \`${argument}\`: there is no \`${file.relative}\` in the workspace; list_files shows what exists.`);
  if (file.stats.isDirectory()) throw new Refusal(`Argument \`${argument}\`: \`${file.relative}\` is a folder; use list_files for folders.`);
  if (!file.stats.isFile()) throw new Refusal(`Argument \`${argument}\`: \`${file.relative}\` is not a regular file, so it is not read.`);
}

/**
 * Reads a file chunk by chunk, handing each decoded piece to `visit` until it returns false or
 * `maxBytes` have been read. A huge file is never held whole.
 */
export function readChunks(real: string, maxBytes: number, visit: (text: string) => boolean): { bytes: number; complete: boolean; binary: boolean } {
  const fd = openSync(real, "r");
  const decoder = new TextDecoder();
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let bytes = 0;
  try {
    for (;;) {
      const want = Math.min(CHUNK_BYTES, maxBytes - bytes);
      if (want <= 0) return { bytes, complete: false, binary: false };
      const got = readSync(fd, buffer, 0, want, null);
      if (got === 0) {
        visit(decoder.decode());
        return { bytes, complete: true, binary: false };
      }
      const piece = buffer.subarray(0, got);
      if (bytes === 0 && piece.includes(0)) return { bytes: got, complete: false, binary: true };
      bytes += got;
      if (!visit(decoder.decode(piece, { stream: true }))) return { bytes, complete: false, binary: false };
    }
  } finally {
    closeSync(fd);
  }
}

/** Reads a whole small file as text; refuses a binary or an over-large one. */
export function readSmallText(file: ResolvedPath, maxBytes: number, argument = "path"): string {
  requireRegularFile(file, argument);
  if (file.stats!.size > maxBytes) throw new Refusal(`Argument \`${argument}\`: \`${file.relative}\` is larger than ${maxBytes} bytes; this tool only handles smaller files.`);
  let text = "";
  const read = readChunks(file.real, maxBytes + 1, (piece) => ((text += piece), true));
  if (read.binary) throw new Refusal(`Argument \`${argument}\`: \`${file.relative}\` is a binary file.`);
  return text;
}

/** A line as read_file shows it: its number right-aligned, two spaces, the text. */
export function numbered(line: number, text: string): string {
  return `${String(line).padStart(6)}  ${text}`;
}
