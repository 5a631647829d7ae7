import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildInfo, commitOf, targetName, versionLine } from "../../src/platform/build-info.ts";

describe("what ran, for bug reports", () => {
  test.each([
    ["darwin", "arm64", "darwin-arm64"],
    ["darwin", "x64", "darwin-x64"],
    ["linux", "arm64", "linux-arm64"],
    ["linux", "x64", "linux-x64"],
    ["win32", "x64", "windows-x64"],
  ])("%s %s is the release name %s", (platform, arch, name) => {
    expect(targetName(platform, arch)).toBe(name);
  });

  test("the version line names version, commit and target", () => {
    expect(versionLine("0.2.0", { commit: "10fa477", target: "darwin-arm64" })).toBe("glassbox 0.2.0 (10fa477, darwin-arm64)");
  });

  test("from source, the commit is the checkout's and the target this machine's", () => {
    const head = Bun.spawnSync(["git", "rev-parse", "--short=7", "HEAD"], { cwd: import.meta.dir }).stdout.toString().trim();
    const info = buildInfo();
    // A copy outside git (the mutation check runs the suite in one) has no commit to name.
    expect(info.commit).toMatch(head ? new RegExp(`^${head}(-dirty)?$`) : /^unknown$/);
    expect(info.target).toBe(targetName(process.platform, process.arch));
  });

  test("outside a git checkout the commit is unknown; a changed tracked file marks it dirty", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-commit-"));
    try {
      expect(commitOf(dir)).toBe("unknown");
      const git = (...args: string[]) => Bun.spawnSync(["git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", ...args]);
      git("init", "-q");
      fs.writeFileSync(path.join(dir, "a"), "1");
      git("add", "a");
      git("commit", "-qm", "one");
      const clean = commitOf(dir);
      expect(clean).toMatch(/^[0-9a-f]{7}$/);
      fs.writeFileSync(path.join(dir, "a"), "2");
      expect(commitOf(dir)).toBe(`${clean}-dirty`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
