import { afterAll } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Cleaning up thousands of eval files can outlast a hook's default 5 s on a busy machine. */
const CLEANUP_TIMEOUT_MS = 120_000;

/**
 * Folders for a test file that writes many files (eval outputs): all under one root, removed
 * after that file with a generous timeout, so the suite's shared cleanup stays quick.
 */
export function scratchFolders(purpose: string): (name: string) => string {
  const root = mkdtempSync(join(tmpdir(), `glassbox-test-${purpose}-`));
  let made = 0;
  afterAll(() => rmSync(root, { recursive: true, force: true }), { timeout: CLEANUP_TIMEOUT_MS });
  return (name) => {
    const folder = join(root, `${name}-${++made}`);
    mkdirSync(folder);
    return folder;
  };
}
