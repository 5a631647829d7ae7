import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempFolder } from "../helpers/workspace.ts";
import { makeGlassboxFolder } from "../../src/platform/glassbox-folder.ts";
import { EventLog, eventLogPath } from "../../src/trace/event-log.ts";

describe(".glassbox/.gitignore", () => {
  test("written with the folder, ignoring everything, so git status never shows glassbox's files", async () => {
    const root = tempFolder("gitignore");
    new EventLog(eventLogPath(root, "run-1"));
    expect(readFileSync(join(root, ".glassbox", ".gitignore"), "utf8")).toBe("*\n");
    const git = Bun.spawnSync(["git", "init", "-q"], { cwd: root });
    if (git.exitCode === 0) {
      const status = Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=all"], { cwd: root });
      expect(status.stdout.toString()).toBe("");
    }
  });

  test("an existing .gitignore there is left as the person wrote it", () => {
    const root = tempFolder("gitignore");
    mkdirSync(join(root, ".glassbox"));
    writeFileSync(join(root, ".glassbox", ".gitignore"), "");
    makeGlassboxFolder(join(root, ".glassbox", "undo", "r"));
    expect(readFileSync(join(root, ".glassbox", ".gitignore"), "utf8")).toBe("");
  });

  test("a folder outside .glassbox gets no .gitignore", () => {
    const root = tempFolder("gitignore");
    makeGlassboxFolder(join(root, "out", "runs"));
    expect(existsSync(join(root, "out", ".gitignore"))).toBe(false);
    expect(existsSync(join(root, "out", "runs", ".gitignore"))).toBe(false);
  });
});
