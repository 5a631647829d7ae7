/**
 * run_check: a fixed argv chosen by the user, run without a shell in the workspace, with a
 * timeout that kills the whole process group, a capped output, and only a few environment variables.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_LIMITS } from "../../src/protocol/limits.ts";
import type { Checks } from "../../src/tools/checks.ts";
import { makeWorkspace, type TestWorkspace } from "../helpers/workspace.ts";
import { call, runScripted } from "../helpers/run.ts";
import { expectRefused, gate, recordingApprover } from "./harness.ts";
import { leftovers, unique } from "../helpers/processes.ts";
import { makeRunCheck } from "../../src/tools/run_check.ts";
import { DIRECT } from "../../src/sandbox/detect.ts";
import { ChangeJournal } from "../../src/files/journal.ts";
import { applyUndo } from "../../src/files/restore.ts";
import { Workspace } from "../../src/files/workspace.ts";

const BUN = process.execPath;
const SECRET_NAME = "GLASSBOX_TEST_SECRET";
const SECRET_VALUE = "s3cr3t-value-0b7e";

let ws: TestWorkspace;
const markers: string[] = [];
beforeAll(() => {
  ws = makeWorkspace();
});
afterAll(() => {
  // Belt and braces: never leave a sleeper behind even if a test failed.
  for (const marker of markers) Bun.spawnSync(["pkill", "-KILL", "-f", marker]);
  delete process.env[SECRET_NAME];
});

describe("the toy workspace's tests", () => {
  const checks: Checks = { tests: { argv: [BUN, "test"], timeout_seconds: 60, env: [] } };

  test("a failing test's output comes back to the model", async () => {
    const run = await runScripted([call("run_check", { name: "tests" }), { content: "they fail" }], { workspace: ws.root, checks, limits: { max_result_chars: 20_000 } });
    expect(run.calls[0]!.decision).toBe("allowed");
    const result = run.model.requests[1]!.messages.find((m) => m.role === "tool")!.content;
    expect(result).toMatch(/^Check tests failed \(exit 1, [\d.]+s\)\./);
    expect(result).toContain("fail");
    expect(result).toContain("1.10.0 is newer than 1.9.2");
  });

  test("after the fix the same check passes", async () => {
    const fixed = makeWorkspace();
    const file = join(fixed.root, "src/version.ts");
    writeFileSync(file, readFileSync(file, "utf8").replace('.split(".");', '.split(".").map(Number);'));
    const verdict = await gate(fixed.root, { checks }).call("run_check", { name: "tests" });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toMatch(/^Check tests passed \(exit 0, [\d.]+s\)\./);
  });

  test("a check that is not configured is refused, listing the ones that are", async () => {
    const verdict = await gate(ws.root, { checks: { tests: checks.tests!, lint: { argv: ["true"], timeout_seconds: 5, env: [] } } }).call("run_check", {
      name: "typecheck",
    });
    expectRefused(verdict, ws, "`name`", "tests, lint");
  });

  test("the model cannot pass anything but a name", async () => {
    const verdict = await gate(ws.root, { checks }).call("run_check", { name: "tests", argv: ["rm", "-rf", "/"] });
    expectRefused(verdict, ws, "`argv`");
  });

  test("with no checks configured there is no run_check tool", async () => {
    const verdict = await gate(ws.root).call("run_check", { name: "tests" });
    expectRefused(verdict, ws, /no tool named "run_check"/);
  });
});

describe("exit codes and starting", () => {
  const rows: Array<[label: string, argv: string[], expected: RegExp]> = [
    ["exit 0 passes", ["true"], /^Check c passed \(exit 0, /],
    ["exit 3 fails with its code", ["bash", "-c", "echo out; echo err >&2; exit 3"], /^Check c failed \(exit 3, [^\n]*\nWorkspace files it changed \(in the undo journal: glassbox undo restores them\): none\.\n(out\nerr|err\nout)\n$/],
    ["arguments are not seen by a shell", ["echo", "$HOME", "*", ";", "rm"], /\n\$HOME \* ; rm\n$/],
    ["a command that is not installed", ["no-such-command-glassbox-4d2"], /^Check c could not start: its command `no-such-command-glassbox-4d2` was not found/],
    ["a file that is not executable", ["./README.md"], /^Check c could not start: its command `\.\/README\.md`/],
    ["stdin is closed, so a reader ends at once", ["cat"], /^Check c passed \(exit 0, /],
  ];
  for (const [label, argv, expected] of rows) {
    test(label, async () => {
      const verdict = await gate(ws.root, { checks: { c: { argv, timeout_seconds: 5, env: [] } } }).call("run_check", { name: "c" });
      expect(verdict.decision).toBe("allowed");
      expect(verdict.content).toMatch(expected);
    });
  }

  test("it runs in the workspace folder", async () => {
    const verdict = await gate(ws.root, { checks: { c: { argv: ["ls"], timeout_seconds: 5, env: [] } } }).call("run_check", { name: "c" });
    expect(verdict.content).toContain("README.md");
    expect(verdict.content).toContain("glassbox.json");
  });
});

describe("processes never outlive their check", () => {
  const hangs: Array<[label: string, argv: (marker: string) => string[]]> = [
    ["bash with two sleepers", (m) => ["bash", "-c", `sleep 30.${m} & sleep 30.${m}; wait`]],
    ["bun spawning a child and sleeping", (m) => [BUN, "-e", `Bun.spawn(["sleep", "30.${m}"]); await Bun.sleep(30000);`]],
  ];
  for (const [label, argv] of hangs) {
    test.concurrent(`${label}: killed at timeout_seconds 1, nothing left`, async () => {
      const marker = unique();
      markers.push(marker);
      const started = performance.now();
      const verdict = await gate(ws.root, { checks: { hang: { argv: argv(marker), timeout_seconds: 1, env: [] } } }).call("run_check", { name: "hang" });
      const took = performance.now() - started;
      expect(verdict.decision).toBe("allowed");
      expect(verdict.content).toStartWith("Check hang timed out after 1s and was stopped.");
      // Not before the timeout; and long before the 30 s sleepers, with room for a loaded machine.
      expect(took).toBeGreaterThan(900);
      expect(took).toBeLessThan(15_000);
      expect(await leftovers(marker)).toEqual([]);
    }, 25_000);
  }

  test.concurrent("a background process left by a check that exited is killed too", async () => {
    const marker = unique();
    markers.push(marker);
    const started = performance.now();
    const verdict = await gate(ws.root, { checks: { bg: { argv: ["bash", "-c", `sleep 30.${marker} & echo started`], timeout_seconds: 10, env: [] } } }).call(
      "run_check",
      { name: "bg" },
    );
    expect(verdict.content).toMatch(/^Check bg passed \(exit 0, [\d.]+s\)\.\nWorkspace files it changed \(in the undo journal: glassbox undo restores them\): none\.\nstarted\n$/);
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(await leftovers(marker)).toEqual([]);
  }, 25_000);

  test.concurrent("stopping the run stops the check and its children", async () => {
    const marker = unique();
    markers.push(marker);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 300);
    const started = performance.now();
    const verdict = await gate(ws.root, { checks: { long: { argv: ["bash", "-c", `sleep 30.${marker} & sleep 30.${marker}; wait`], timeout_seconds: 20, env: [] } } }).call(
      "run_check",
      { name: "long" },
      abort.signal,
    );
    expect(verdict.content).toStartWith("Check long was stopped because the run ended.");
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(await leftovers(marker)).toEqual([]);
  }, 25_000);
});

describe("output over the cap", () => {
  test("50 MB of output is read with a cap; the model is told how much was dropped", async () => {
    const TOTAL = 50_000_000;
    const started = performance.now();
    const verdict = await gate(ws.root, { checks: { loud: { argv: ["bash", "-c", `yes abcdefghi | head -c ${TOTAL}`], timeout_seconds: 20, env: [] } } }).call(
      "run_check",
      { name: "loud" },
    );
    expect(performance.now() - started).toBeLessThan(5000);
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content.length).toBeLessThanOrEqual(DEFAULT_LIMITS.max_result_chars);
    // 32 KiB kept from each end: the rest is counted, and the count is in the first line, which clipping keeps.
    expect(verdict.content.split("\n")[0]).toBe(`Check loud passed (exit 0, ${/\(exit 0, ([\d.]+s)\)/.exec(verdict.content)![1]}). Its output was long: ${TOTAL - 2 * 32 * 1024} bytes from the middle were dropped.`);
    expect(verdict.content).toMatch(/characters cut/);
    expect(verdict.content).toContain("abcdefghi\nabcdefghi");
  });

  test("output just under the cap is kept whole", async () => {
    const verdict = await gate(ws.root, { checks: { some: { argv: ["bash", "-c", "yes 0123456789 | head -c 60000"], timeout_seconds: 5, env: [] } } }).call(
      "run_check",
      { name: "some" },
    );
    expect(verdict.content.split("\n")[0]).toMatch(/^Check some passed \(exit 0, [\d.]+s\)\.$/);
    expect(verdict.content).not.toContain("bytes of output dropped");
  });
});

describe("the environment", () => {
  beforeAll(() => {
    process.env[SECRET_NAME] = SECRET_VALUE;
  });

  const rows: Array<[label: string, env: string[], secretPresent: boolean]> = [
    ["a secret of the user's is not passed", [], false],
    ["a variable the check's config names is passed", [SECRET_NAME], true],
  ];
  for (const [label, env, secretPresent] of rows) {
    test(label, async () => {
      const verdict = await gate(ws.root, { checks: { env: { argv: ["env"], timeout_seconds: 5, env } }, maxResultChars: 50_000 }).call("run_check", { name: "env" });
      expect(verdict.decision).toBe("allowed");
      expect(verdict.content).toMatch(/^PATH=/m);
      if (secretPresent) expect(verdict.content).toContain(`${SECRET_NAME}=${SECRET_VALUE}`);
      else expect(verdict.content).not.toContain(SECRET_VALUE);
    });
  }
});

test("a result whose output was cut says when", async () => {
  const marker = unique();
  markers.push(marker);
  const checks: Checks = { daemon: { argv: ["sh", "-c", `setsid sh -c 'exec sleep 300.${marker}' & echo started; sleep 0.3`], timeout_seconds: 10, env: [] } };
  const verdict = await gate(ws.root, { tools: [makeRunCheck(checks, DIRECT)!] }).call("run_check", { name: "daemon" });
  expect(verdict.content).toMatch(/^Check daemon passed \(exit 0, [\d.]+s\)\. Its output was cut at [\d.]+s: a process it started still held the output open after it ended\.\nWorkspace files it changed \(in the undo journal: glassbox undo restores them\): none\.\nstarted\n$/);
}, 15_000);

describe("what a check changes is journaled, listed, and undone (CONTRACT.md's changes)", () => {
  /** A fresh git repository with a check that writes, deletes, renames and chmods, and builds into an ignored folder. */
  function changingWorkspace(): { root: string; checks: Checks } {
    const root = makeWorkspace().root;
    Bun.spawnSync(["git", "init", "-q"], { cwd: root });
    writeFileSync(join(root, ".gitignore"), "build/\n");
    writeFileSync(join(root, "old.txt"), "old\n");
    writeFileSync(join(root, "gone.txt"), "gone\n");
    writeFileSync(join(root, "run.sh"), "#!/bin/sh\n", { mode: 0o644 });
    writeFileSync(join(root, "Zeta.txt"), "z\n");
    const script = "echo new > b.txt; echo again > old.txt; rm gone.txt; mv Zeta.txt a.txt; chmod 755 run.sh; mkdir -p build; echo o > build/out.js";
    return { root, checks: { build: { argv: ["sh", "-c", script], timeout_seconds: 10, env: [] } } };
  }

  test("the verdict lists each change once, sorted by code unit (upper case first), a rename as deleted + created", async () => {
    const { root, checks } = changingWorkspace();
    const run = await runScripted([call("run_check", { name: "build" }), { content: "built" }], { workspace: root, checks });
    expect(run.calls[0]!.changes).toEqual([
      { path: "Zeta.txt", change: "deleted" },
      { path: "a.txt", change: "created" },
      { path: "b.txt", change: "created" },
      { path: "gone.txt", change: "deleted" },
      { path: "old.txt", change: "changed" },
      { path: "run.sh", change: "mode" },
    ]);
    // Unconfined, the snapshot never walks the ignored folder: its files are written, not counted.
    expect(run.calls[0]!.ignored_changes).toBe(0);
    expect(run.calls[0]!.result).toContain("Workspace files it changed (in the undo journal: glassbox undo restores them): a.txt (created, 2 bytes)");
  });

  test("a check that changes nothing carries an empty list; a tool that runs no command carries none", async () => {
    const run = await runScripted([call("run_check", { name: "noop" }), call("read_file", { path: "README.md" }), { content: "done" }], {
      workspace: ws.root,
      checks: { noop: { argv: ["true"], timeout_seconds: 5, env: [] } },
    });
    expect(run.calls[0]).toMatchObject({ changes: [], ignored_changes: 0 });
    expect("changes" in run.calls[1]!).toBe(false);
  });

  test("undo restores every byte and mode a check changed", async () => {
    const { root, checks } = changingWorkspace();
    const before = Object.fromEntries(["old.txt", "gone.txt", "run.sh", "Zeta.txt"].map((name) => [name, [readFileSync(join(root, name), "utf8"), statSync(join(root, name)).mode]]));
    const tool = makeRunCheck(checks, DIRECT)!;
    const checked = gate(root, { tools: [tool] });
    checked.checkpoint.journal = new ChangeJournal(root, "r1");
    const verdict = await checked.call("run_check", { name: "build" });
    expect(verdict.changes?.changes.length).toBe(6);
    applyUndo(new Workspace(root), "r1", { force: false });
    for (const [name, [text, mode]] of Object.entries(before)) {
      expect(readFileSync(join(root, name), "utf8")).toBe(text as string);
      expect(statSync(join(root, name)).mode).toBe(mode as number);
    }
    expect(existsSync(join(root, "a.txt")) || existsSync(join(root, "b.txt"))).toBe(false);
  });

  test("past the snapshot's bound a check is asked for, saying why; headless it is denied and nothing runs", async () => {
    const { root, checks } = changingWorkspace();
    const tool = makeRunCheck(checks, DIRECT, { max_files: 2, max_bytes: 1 << 20 })!;
    const { approver, requests } = recordingApprover("no");
    expect((await gate(root, { tools: [tool], approver }).call("run_check", { name: "build" })).decision).toBe("denied");
    expect(requests[0]!.why).toBe("run_check may write and its changes cannot be journaled here: the workspace holds over 2 files");
    const headless = await gate(root, { tools: [tool] }).call("run_check", { name: "build" });
    expect(headless.decision).toBe("denied");
    expect(headless.reason).toContain("its changes cannot be journaled here");
    expect(existsSync(join(root, "b.txt"))).toBe(false);
  });
});
