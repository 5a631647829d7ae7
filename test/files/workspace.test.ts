/**
 * Confinement: every path a tool touches resolves inside the real workspace root, never through a
 * link leading out, never to an off-limits name, never to something that is not a regular file.
 * Driven through the real Checkpoint, so the order (validation → preflight → rules → approval →
 * run) is the one a model meets.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Workspace, isOffLimitsName } from "../../src/files/workspace.ts";
import { Refusal } from "../../src/tools/tool.ts";
import { CANARY, makeWorkspace, type TestWorkspace } from "../helpers/workspace.ts";
import { expectNoMachinePaths, expectRefused, gate, recordingApprover } from "../tools/harness.ts";

const DOTENV_SECRET = "DOTENV-SECRET-41d7";

let ws: TestWorkspace;
let secretsDir: string;

/** A watchdog that opens the FIFO for writing after a moment: a reader that wrongly opened it gets unblocked (and caught). */
function fifoWatchdog(path: string): { stop(): void } {
  // Its own process group, killed whole: a writer blocked on the FIFO must not outlive the test.
  // The writer comes late: a tool that opened the FIFO would block until then and read its data, so
  // the test sees it by content (and its own timeout), never by a timed assertion.
  const child = Bun.spawn(["timeout", "12", "bash", "-c", `sleep 10; echo FIFO-DATA-9c1 > "$0"`, path], { stdout: "ignore", stderr: "ignore", detached: true });
  return {
    stop: () => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    },
  };
}

beforeAll(() => {
  ws = makeWorkspace();
  secretsDir = join(ws.outside, "secrets");
  const r = (name: string) => join(ws.root, name);
  writeFileSync(r(".env"), `TOKEN=${DOTENV_SECRET}\n`);
  writeFileSync(r(".env.local"), `TOKEN=${DOTENV_SECRET}\n`);
  writeFileSync(r(".ENV"), `TOKEN=${DOTENV_SECRET}\n`);
  mkdirSync(r(".git"));
  writeFileSync(r(".git/config"), `[remote] url=${DOTENV_SECRET}\n`);
  mkdirSync(r("sub/.git"), { recursive: true });
  writeFileSync(r("sub/.git/x"), DOTENV_SECRET);
  writeFileSync(r("sub/ok.txt"), "fine\n");
  mkdirSync(r(".glassbox/runs"), { recursive: true });
  writeFileSync(r(".glassbox/runs/x"), DOTENV_SECRET);
  symlinkSync(ws.canaryPath, r("out-file"));
  symlinkSync(secretsDir, r("out-dir"));
  symlinkSync(join(secretsDir, "new.txt"), r("dangling-out"));
  symlinkSync(join(ws.outside, "nowhere"), r("dangling-dir-out"));
  symlinkSync(".env", r("dotenv-link"));
  symlinkSync(".git", r("git-link"));
  symlinkSync("/dev/zero", r("zero"));
  symlinkSync("README.md", r("readme-link"));
  symlinkSync("src", r("src-link"));
  symlinkSync("loop-b", r("loop-a"));
  symlinkSync("loop-a", r("loop-b"));
  const made = Bun.spawnSync(["mkfifo", r("fifo")]);
  if (made.exitCode !== 0) throw new Error("mkfifo failed");
});

/** Paths refused for every file tool, and a part of the sentence each refusal must contain. */
const ESCAPES: Array<[label: string, path: string, mention: RegExp]> = [
  ["dot-dot", "../secrets/canary.txt", /points outside the workspace; use a path inside it/],
  ["dot-dot alone", "..", /points outside the workspace; use a path inside it/],
  ["dot-dot after a folder", "src/../../secrets/canary.txt", /points outside the workspace; use a path inside it/],
  ["dot-dot hidden by dot", "./src/./../../secrets", /points outside the workspace; use a path inside it/],
  ["absolute path", "/etc/passwd", /not an absolute path/],
  ["absolute path to the canary", "", /not an absolute path/], // filled in with ws.canaryPath below
  ["windows drive path", "C:\\Windows\\win.ini", /not an absolute path/],
  ["link to a file outside", "out-file", /leads outside the workspace through a link/],
  ["link to a folder outside", "out-dir", /leads outside the workspace through a link/],
  ["a file through a linked folder outside", "out-dir/canary.txt", /leads outside the workspace through a link/],
  ["link to /dev/zero", "zero", /leads outside the workspace through a link/],
  ["under a link to a file outside", "out-file/x", /leads outside the workspace through a link/],
  ["NUL byte", "README.md\0.txt", /NUL byte/],
  [".env", ".env", /`\.env`.*off limits/],
  [".env.local", ".env.local", /`\.env\.local`.*off limits/],
  [".ENV (case)", ".ENV", /`\.ENV`.*off limits/],
  [".Env.Production (case)", "deep/.Env.Production", /off limits/],
  [".git/config", ".git/config", /`\.git`.*off limits/],
  ["sub/.git/x", "sub/.git/x", /`\.git`.*off limits/],
  [".GIT (case)", ".GIT/config", /off limits/],
  [".glassbox/runs/x", ".glassbox/runs/x", /`\.glassbox`.*off limits/],
  ["off limits after dot-dot inside", "src/../.env", /`\.env`.*off limits/],
  ["link to .env", "dotenv-link", /`\.env`.*off limits/],
  ["a file through a link to .git", "git-link/config", /`\.git`.*off limits/],
  ["link loop", "loop-a", /link loop/],
];

function escapes(): Array<[string, string, RegExp]> {
  return ESCAPES.map(([label, path, mention]) => [label, path === "" ? ws.canaryPath : path, mention]);
}

function expectNothingLeaked(text: string): void {
  expect(text).not.toContain(CANARY);
  expect(text).not.toContain(DOTENV_SECRET);
}

describe("read_file refuses every escape, naming `path`", () => {
  for (const [label] of ESCAPES) {
    test(label, async () => {
      const [, path, mention] = escapes().find(([l]) => l === label)!;
      const verdict = await gate(ws.root).call("read_file", { path });
      expectRefused(verdict, ws, "`path`", mention);
      expectNothingLeaked(verdict.content);
    });
  }
});

describe("write_file refuses every escape before anyone is asked, and writes nothing", () => {
  for (const [label] of ESCAPES) {
    test(label, async () => {
      const [, path, mention] = escapes().find(([l]) => l === label)!;
      const { approver, requests } = recordingApprover("yes");
      const canaryBefore = readFileSync(ws.canaryPath, "utf8");
      const verdict = await gate(ws.root, { approver }).call("write_file", { path, content: "overwritten" });
      expectRefused(verdict, ws, "`path`", mention);
      expect(requests).toHaveLength(0);
      expect(readFileSync(ws.canaryPath, "utf8")).toBe(canaryBefore);
      expect(readdirSync(secretsDir)).toEqual(["canary.txt"]);
      expect(readFileSync(join(ws.root, ".env"), "utf8")).toContain(DOTENV_SECRET);
    });
  }
});

describe("edit_file refuses every escape before anyone is asked", () => {
  for (const [label] of ESCAPES) {
    test(label, async () => {
      const [, path, mention] = escapes().find(([l]) => l === label)!;
      const { approver, requests } = recordingApprover("yes");
      const verdict = await gate(ws.root, { approver }).call("edit_file", { path, old: "CANARY", new: "x" });
      expectRefused(verdict, ws, "`path`", mention);
      expect(requests).toHaveLength(0);
      expect(readFileSync(ws.canaryPath, "utf8")).toContain(CANARY);
    });
  }
});

describe("list_files and search_text refuse escaping folders, naming `directory`", () => {
  const folders: Array<[string, string, RegExp]> = [
    ["..", "..", /outside the workspace/],
    ["absolute", "/", /not an absolute path/],
    ["linked folder outside", "out-dir", /through a link/],
    [".git", ".git", /off limits/],
    [".glassbox", ".glassbox", /off limits/],
    ["NUL", "src\0", /NUL byte/],
  ];
  for (const tool of ["list_files", "search_text"]) {
    for (const [label, directory, mention] of folders) {
      test(`${tool}: ${label}`, async () => {
        const args = tool === "search_text" ? { text: "CANARY", directory } : { directory };
        const verdict = await gate(ws.root).call(tool, args);
        expectRefused(verdict, ws, "`directory`", mention);
        expectNothingLeaked(verdict.content);
      });
    }
  }
});

describe("writes through dangling links", () => {
  const cases: Array<[string, string]> = [
    ["a dangling link to a file outside", "dangling-out"],
    ["a file under a dangling link to a folder outside", "dangling-dir-out/x.txt"],
    ["a new file in a linked folder outside", "out-dir/new.txt"],
  ];
  for (const [label, path] of cases) {
    test(`${label} is refused and nothing is created outside`, async () => {
      const { approver, requests } = recordingApprover("yes");
      const verdict = await gate(ws.root, { approver, allow: ["write_file"] }).call("write_file", { path, content: "escaped" });
      expectRefused(verdict, ws, "`path`", /link/);
      expect(requests).toHaveLength(0);
      expect(readdirSync(secretsDir)).toEqual(["canary.txt"]);
      expect(existsSync(join(ws.outside, "nowhere"))).toBe(false);
    });
  }

  test("even an allow rule for every write does not let one out", async () => {
    const verdict = await gate(ws.root, { allow: ["write_file"] }).call("write_file", { path: "out-file", content: "escaped" });
    expect(verdict.decision).toBe("refused");
    expect(readFileSync(ws.canaryPath, "utf8")).toBe(`${CANARY}\n`);
  });
});

describe("links that stay inside", () => {
  test("a link to a file inside reads the real file, named by its real path", async () => {
    const verdict = await gate(ws.root).call("read_file", { path: "readme-link" });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toStartWith("[README.md: lines 1-");
    expect(verdict.content).toContain("semver-lite");
  });

  test("a file through a linked folder inside is read", async () => {
    const verdict = await gate(ws.root).call("read_file", { path: "src-link/version.ts" });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toStartWith("[src/version.ts: lines 1-");
  });

  test("rules see the real path: a deny rule on README.md catches a write through a link to it", async () => {
    const { approver, requests } = recordingApprover("yes");
    const verdict = await gate(ws.root, { approver, allow: ["write_file"], deny: ["write_file:README.md"] }).call("write_file", {
      path: "readme-link",
      content: "x",
    });
    expect(verdict.decision).toBe("denied");
    expect(verdict.reason).toContain("write_file:README.md");
    expect(requests).toHaveLength(0);
    expect(readFileSync(join(ws.root, "README.md"), "utf8")).toContain("semver-lite");
  });
});

describe("things that are not regular files", () => {
  test("a FIFO is refused by read_file and never opened", async () => {
    const watchdog = fifoWatchdog(join(ws.root, "fifo"));
    try {
      const verdict = await gate(ws.root).call("read_file", { path: "fifo" });
      expectRefused(verdict, ws, "`path`", "`fifo`", /not a regular file/);
      expect(verdict.content).not.toContain("FIFO-DATA");
    } finally {
      watchdog.stop();
    }
  }, 8000);

  test("a FIFO is refused by edit_file and write_file, before approval", async () => {
    const watchdog = fifoWatchdog(join(ws.root, "fifo"));
    try {
      const { approver, requests } = recordingApprover("yes");
      const g = gate(ws.root, { approver });
      const edit = await g.call("edit_file", { path: "fifo", old: "a", new: "b" });
      expectRefused(edit, ws, "`path`", /not a regular file/);
      const write = await g.call("write_file", { path: "fifo", content: "x" });
      expectRefused(write, ws, "`path`", /not a regular file/);
      expect(requests).toHaveLength(0);
    } finally {
      watchdog.stop();
    }
  }, 8000);

  test("list_files and search_text walk past a FIFO without opening it", async () => {
    const watchdog = fifoWatchdog(join(ws.root, "fifo"));
    try {
      const g = gate(ws.root);
      const list = await g.call("list_files", {});
      expect(list.decision).toBe("allowed");
      const search = await g.call("search_text", { text: "FIFO-DATA" });
      expect(search.decision).toBe("allowed");
      expect(search.content).toStartWith("No line matches");
    } finally {
      watchdog.stop();
    }
  }, 8000);

  test("a folder passed to read_file is refused, pointing at list_files", async () => {
    const verdict = await gate(ws.root).call("read_file", { path: "src" });
    expectRefused(verdict, ws, "`path`", "`src`", /folder/, /list_files/);
  });

  test("the workspace root itself passed to read_file is refused as a folder", async () => {
    expectRefused(await gate(ws.root).call("read_file", { path: "." }), ws, "`path`", /folder/);
  });

  test("a missing file is refused, naming it relative to the workspace", async () => {
    expectRefused(await gate(ws.root).call("read_file", { path: "src/nope.ts" }), ws, "`path`", "`src/nope.ts`");
  });

  test("a path through a file as if it were a folder is refused before approval", async () => {
    const { approver, requests } = recordingApprover("yes");
    const verdict = await gate(ws.root, { approver }).call("write_file", { path: "README.md/inner.txt", content: "x" });
    expectRefused(verdict, ws, "`path`");
    expect(requests).toHaveLength(0);
  });

  test("a file name too long for the file system is refused, not an internal error", async () => {
    const { approver, requests } = recordingApprover("yes");
    const g = gate(ws.root, { approver });
    for (const [tool, args] of [
      ["read_file", { path: "x".repeat(300) }],
      ["write_file", { path: "x".repeat(300), content: "x" }],
    ] as const) {
      const verdict = await g.call(tool, args);
      expectRefused(verdict, ws, "`path`");
    }
    expect(requests).toHaveLength(0);
  });
});

describe("Workspace directly", () => {
  test("the root is resolved, so a root given through a link still confines", () => {
    const linked = join(ws.outside, "root-link");
    symlinkSync(ws.root, linked);
    const workspace = new Workspace(linked);
    expect(workspace.resolve("README.md").relative).toBe("README.md");
    expect(() => workspace.resolve("../secrets/canary.txt")).toThrow(Refusal);
    expect(() => workspace.resolve("out-file")).toThrow(Refusal);
  });

  const resolved: Array<[string, string, boolean]> = [
    ["README.md", "README.md", true],
    ["./src/../README.md", "README.md", true],
    ["src//version.ts", "src/version.ts", true],
    ["readme-link", "README.md", true],
    ["src-link/version.ts", "src/version.ts", true],
    ["new/deep/file.txt", "new/deep/file.txt", false],
    [".", ".", true],
    ["sub/ok.txt", "sub/ok.txt", true],
  ];
  for (const [path, relative, exists] of resolved) {
    test(`resolve(${JSON.stringify(path)}) → ${relative}`, () => {
      const file = new Workspace(ws.root).resolve(path);
      expect(file.relative).toBe(relative);
      expect(file.stats !== null).toBe(exists);
      expect(file.real.startsWith(new Workspace(ws.root).root)).toBe(true);
    });
  }

  test("admits() hides what resolve() would refuse, without throwing", () => {
    const workspace = new Workspace(ws.root);
    expect(workspace.admits(join(workspace.root, "out-file"))).toBeNull();
    expect(workspace.admits(join(workspace.root, "dotenv-link"))).toBeNull();
    expect(workspace.admits(join(workspace.root, "zero"))).toBeNull();
    expect(workspace.admits(join(workspace.root, "readme-link"))?.relative).toBe("README.md");
  });

  const names: Array<[string, boolean]> = [
    [".env", true],
    [".ENV", true],
    [".env.local", true],
    [".env.", true],
    [".git", true],
    [".Git", true],
    [".glassbox", true],
    [".GLASSBOX", true],
    ["env", false],
    [".envrc", false],
    [".gitignore", false],
    ["git", false],
    ["glassbox.json", false],
    ["x.env", false],
  ];
  for (const [name, off] of names) {
    test(`isOffLimitsName(${JSON.stringify(name)}) is ${off}`, () => {
      expect(isOffLimitsName(name)).toBe(off);
    });
  }

  test("a NUL byte anywhere is refused before the file system is asked", () => {
    const workspace = new Workspace(ws.root);
    for (const path of ["\0", "a\0b", "src/\0/../README.md"]) {
      expect(() => workspace.resolve(path)).toThrow(/NUL byte/);
    }
  });

  test("refusals use the argument name they are given", () => {
    expect(() => new Workspace(ws.root).resolve("..", "directory")).toThrow(/Argument `directory`/);
  });
});

test("no refusal in this file leaks a machine path (spot check of the trickiest)", async () => {
  const g = gate(ws.root);
  for (const path of ["out-dir/canary.txt", "dangling-out", "loop-a", ws.canaryPath, "zero"]) {
    expectNoMachinePaths(await g.call("read_file", { path }), ws);
  }
});
