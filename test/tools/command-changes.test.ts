/**
 * Applying a command's upper layer (src/tools/command-changes.ts) from hand-made layers, without a
 * sandbox: what is off limits is never applied, and a file never lands behind a link the
 * workspace holds where the layer has a folder. The real overlay is in test/sandbox/command-journal.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempFolder } from "../helpers/workspace.ts";
import { applyCommandChanges } from "../../src/tools/command-changes.ts";
import { ChangeJournal, readJournal } from "../../src/files/journal.ts";

function layers(): { root: string; upper: string; outside: string } {
  const root = tempFolder("apply-ws");
  const upper = tempFolder("apply-upper");
  const outside = tempFolder("apply-outside");
  mkdirSync(join(root, ".git"));
  writeFileSync(join(root, ".git", "config"), "[core]\n");
  return { root, upper, outside };
}

function put(folder: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(folder, path, ".."), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
}

describe("applying a command's upper layer", () => {
  const OFF_LIMITS: Array<[label: string, path: string, leftOut: string]> = [
    ["git's config", ".git/config", ".git"],
    ["a nested .env", "sub/.env", "sub/.env"],
    ["a .env.local", ".env.local", ".env.local"],
    ["glassbox's own folder", ".glassbox/undo/x", ".glassbox"],
  ];
  for (const [label, path, leftOut] of OFF_LIMITS) {
    test(`${label} in the layer is left out, named, and not written`, () => {
      const { root, upper } = layers();
      put(upper, { [path]: "from the command\n", "ok.txt": "fine\n" });
      const applied = applyCommandChanges(root, upper, new ChangeJournal(root, "r1"));
      expect(applied.leftOut).toEqual([leftOut]);
      expect(applied.journaled.map((change) => change.path)).toEqual(["ok.txt"]);
      const there = join(root, path);
      expect(existsSync(there) ? readFileSync(there, "utf8") : null).not.toBe("from the command\n");
    });
  }

  test("where the workspace holds a link and the layer a folder, the link is journaled and replaced; nothing is written through it", () => {
    const { root, upper, outside } = layers();
    symlinkSync(outside, join(root, "out"));
    put(upper, { "out/f.txt": "through?\n" });
    const applied = applyCommandChanges(root, upper, new ChangeJournal(root, "r1"));
    expect(existsSync(join(outside, "f.txt"))).toBe(false);
    expect(lstatSync(join(root, "out")).isDirectory()).toBe(true);
    expect(applied.journaled.map((change) => `${change.path} ${change.what}${change.link ? " link" : ""}`)).toEqual(["out deleted link", "out/f.txt created"]);
    expect(readJournal(root, "r1")!.changes.map((change) => [change.path, change.before?.link ?? false])).toEqual([["out", true], ["out/f.txt", false]]);
  });
});
