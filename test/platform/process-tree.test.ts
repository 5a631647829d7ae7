/** Killing a check's tree on each platform, with the platform injected (Windows and macOS cannot run here). */
import { describe, expect, test } from "bun:test";
import { askTreeToEnd, killTree, type ProcessTreeDeps } from "../../src/platform/process-tree.ts";

function recording(platform: NodeJS.Platform, failing = false): ProcessTreeDeps & { calls: string[] } {
  const calls: string[] = [];
  return {
    platform,
    calls,
    kill: (pid, signal) => {
      calls.push(`kill ${pid} ${signal}`);
      if (failing) throw new Error("ESRCH");
    },
    run: (argv) => void calls.push(argv.join(" ")),
  };
}

describe("killTree", () => {
  const rows: Array<[NodeJS.Platform, string[]]> = [
    ["win32", ["taskkill /T /F /PID 4242"]],
    ["darwin", ["kill -4242 SIGKILL"]],
    ["linux", ["kill -4242 SIGKILL"]],
  ];
  for (const [platform, expected] of rows) {
    test(`${platform}: ${expected[0]}`, () => {
      const deps = recording(platform);
      killTree(4242, deps);
      expect(deps.calls).toEqual(expected);
    });
  }

  test("a group that is already gone is not an error", () => {
    const deps = recording("linux", true);
    expect(() => killTree(4242, deps)).not.toThrow();
  });
});

describe("askTreeToEnd", () => {
  test("POSIX: SIGTERM to the leader only, which kills what is below it", () => {
    const deps = recording("darwin");
    askTreeToEnd(4242, deps);
    expect(deps.calls).toEqual(["kill 4242 SIGTERM"]);
  });

  test("Windows: the whole tree at once, before the leader's end breaks the parent links", () => {
    const deps = recording("win32");
    askTreeToEnd(4242, deps);
    expect(deps.calls).toEqual(["taskkill /T /F /PID 4242"]);
  });
});
