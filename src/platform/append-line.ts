import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, writeSync } from "node:fs";

/**
 * Appends one line (a newline is added) to a JSON Lines file: all of it or nothing. A write the
 * disk cuts short (full) is taken back, so the file keeps only whole lines and the next line is
 * never glued to half of this one. `sync`: on the disk (fsync) before it returns.
 */
export function appendLine(path: string, line: string, options: { sync?: boolean } = {}): void {
  const bytes = Buffer.from(line + "\n");
  const fd = openSync(path, "a");
  try {
    const size = fstatSync(fd).size;
    try {
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
      if (options.sync) fsyncSync(fd);
    } catch (error) {
      takeBack(fd, size);
      throw error;
    }
  } finally {
    closeSync(fd);
  }
}

function takeBack(fd: number, size: number): void {
  try {
    ftruncateSync(fd, size);
  } catch {
    // The write's own error is the one to report; a reader names a line left cut off.
  }
}

/** Puts a file's bytes on the disk before anything depends on them. */
export function syncFile(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Puts a folder's entries (a file just made in it) on the disk; some systems cannot, which is no reason to fail. */
export function syncFolder(path: string): void {
  try {
    syncFile(path);
  } catch {
    // The files' own syncs are what matter most.
  }
}
