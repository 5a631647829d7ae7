/**
 * What a command may change, and that every change is undoable (issue #45), for real: real bwrap,
 * real git, an overlay mounted by glassbox in its own namespaces, as an unprivileged user (CI runs
 * as root: setpriv drops to nobody) through a compiled copy of the real tool and of `undo`.
 * Tables: a built-in (read-only) rule against git's writing options and configuration, each run
 * also as a command that may write, the control that proves the trick writes; then commands that
 * write, delete, rename, chmod and link, each undone byte for byte.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { asUnprivileged, compiledForUnprivileged, handOver, unprivilegedFolder } from "../helpers/unprivileged.ts";
import { unique } from "../helpers/processes.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { Workspace } from "../../src/files/workspace.ts";

const SLOW = 60_000;
const NESTED_SECRET = "nested-dotenv-secret-4b7e";
let runner: string;
let home: string;
let runnerTmp: string;

beforeAll(() => {
  runner = compiledForUnprivileged(join(import.meta.dir, "check-runner.ts"));
  home = unprivilegedFolder("journal-home");
  runnerTmp = unprivilegedFolder("journal-tmp");
}, SLOW);

/** A fresh git repository the unprivileged user owns, with uncommitted work in README.md. */
function repository(extra: (root: string) => void = () => {}): string {
  // Made by this (root) process and handed over at the end: git refuses a repository another user owns.
  const root = tempFolder("journal-ws");
  const git = (...args: string[]) => Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: root });
  git("init", "-q");
  git("config", "commit.gpgsign", "false");
  writeFileSync(join(root, "README.md"), "committed\n");
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "a.txt"), "a\n");
  writeFileSync(join(root, "src", "run.sh"), "#!/bin/sh\n", { mode: 0o644 });
  writeFileSync(join(root, ".gitignore"), "build/\n");
  git("add", ".");
  git("commit", "-qm", "first");
  // The person's work, not committed: what no command may lose.
  writeFileSync(join(root, "README.md"), "committed\nmy uncommitted work\n");
  mkdirSync(join(root, "sub"));
  writeFileSync(join(root, "sub", ".env"), `TOKEN=${NESTED_SECRET}\n`);
  extra(root);
  handOver(root);
  return root;
}

/** Every path under the root but .git and .glassbox, with its kind, mode and bytes (a link: its text). */
function snapshot(root: string, folder = ""): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of readdirSync(join(root, folder)).sort()) {
    if (!folder && (name === ".git" || name === ".glassbox")) continue;
    const path = folder ? `${folder}/${name}` : name;
    const stats = lstatSync(join(root, path));
    const mode = (stats.mode & 0o7777).toString(8);
    if (stats.isSymbolicLink()) found[path] = `link -> ${readlinkSync(join(root, path))}`;
    else if (stats.isDirectory()) Object.assign(found, { [path]: `folder ${mode}` }, snapshot(root, path));
    else found[path] = `file ${mode} ${readFileSync(join(root, path)).toString("base64")}`;
  }
  return found;
}

async function asNobody<T>(input: object, cwd: string): Promise<T> {
  const child = Bun.spawn(asUnprivileged([runner, JSON.stringify(input)]), {
    cwd,
    env: { PATH: process.env.PATH, HOME: home, LANG: "C", TMPDIR: runnerTmp },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  try {
    return JSON.parse(stdout.trim().split("\n").at(-1)!) as T;
  } catch {
    throw new Error(`the runner printed no result (exit ${child.exitCode}): ${stderr}${stdout}`);
  }
}

function command(root: string, argv: string[], how: { readOnly?: boolean; runId?: string; timeout_seconds?: number; kind?: string } = {}): Promise<string> {
  const { readOnly, runId, timeout_seconds = 20, kind = "bwrap" } = how;
  return asNobody<{ result: string }>({ kind, workspace: root, command: { argv, timeout_seconds }, readOnly, runId }, root).then((out) => out.result);
}

function undo(root: string, runId: string): Promise<Array<{ path: string; action: string }>> {
  return asNobody<{ undo: Array<{ path: string; action: string }> }>({ workspace: root, undo: runId }, root).then((out) => out.undo);
}

const EVIL = "#!/bin/sh\necho pwned > README.md\ncat \"$@\" 2>/dev/null\n";

/** git's configuration in the repository: a textconv driver, an fsmonitor hook, an external diff, each a program that writes. */
function hostileConfig(root: string): void {
  writeFileSync(join(root, "evil.sh"), EVIL, { mode: 0o755 });
  writeFileSync(join(root, ".gitattributes"), "*.txt diff=evil\n");
  const config = join(root, ".git", "config");
  writeFileSync(config, `${readFileSync(config, "utf8")}[diff "evil"]\n\ttextconv = ./evil.sh\n[core]\n\tfsmonitor = ./evil.sh\n`);
}

/** A built-in rule's command line, and what git would write in a workspace it may write to. */
const BUILT_IN_TRICKS: Array<[label: string, argv: string[], writes: boolean]> = [
  ["git diff --output", ["git", "diff", "--output=README.md"], true],
  ["git log -p --output", ["git", "log", "-p", "--output=README.md"], true],
  ["git show --output", ["git", "show", "HEAD", "--output=README.md"], true],
  ["a textconv driver from the repository's config (git diff)", ["git", "diff", "HEAD", "--", "src/a.txt"], true],
  ["an fsmonitor hook from the repository's config (git status)", ["git", "status"], true],
  // git takes -c only before the command's name: here it is refused, and still read-only.
  ["-c after the built-in's words", ["git", "diff", "--ext-diff", "-c", "diff.external=./evil.sh"], false],
];

describe.if(process.platform === "linux")("a built-in rule's command changes no byte of the workspace (read-only), whatever git is told", () => {
  for (const [label, argv, writes] of BUILT_IN_TRICKS) {
    test.concurrent(`${label}: read-only it changes nothing and shows git's own error; allowed to write, the trick does write (the control)`, async () => {
      const root = repository(hostileConfig);
      // The textconv driver needs a change to diff.
      if (label.includes("textconv")) writeFileSync(join(root, "src", "a.txt"), "a changed\n");
      handOver(root);
      const before = snapshot(root);
      const result = await command(root, argv, { readOnly: true });
      expect(snapshot(root)).toEqual(before);
      expect(result).toContain("It ran with the workspace read-only");
      const control = await command(root, argv, { runId: "control" });
      expect(control).not.toContain("read-only");
      if (writes) expect(control).toContain("README.md (changed");
    }, SLOW);
  }
});

describe.if(process.platform === "linux")("read-only in every kind of sandbox", () => {
  for (const kind of ["bwrap", "landlock"]) {
    test.concurrent(`${kind}: a read-only command's writes, deletes and new files fail inside it`, async () => {
      const root = repository();
      const before = snapshot(root);
      const result = await command(root, ["sh", "-c", "echo x > README.md; rm src/a.txt; echo n > src/new.txt; echo t > $TMPDIR/t && echo tmp-ok"], { readOnly: true, kind });
      expect(snapshot(root)).toEqual(before);
      expect(result).toContain("tmp-ok");
      expect(result).toMatch(/README\.md: (Read-only file system|Permission denied)/);
    }, SLOW);
  }
});

/** A command that changes the workspace, and what its change is: each is undone byte for byte. */
const CHANGES: Array<[label: string, script: string]> = [
  ["writes over uncommitted work", "echo overwritten > README.md"],
  ["creates a file in a new folder", "mkdir -p new/deeper && echo n > new/deeper/n.txt"],
  ["deletes a file", "rm src/a.txt"],
  ["renames a file", "mv src/a.txt src/b.txt"],
  ["renames a folder", "mv src lib"],
  ["chmods a file", "chmod 755 src/run.sh"],
  ["links inside and out", "ln -s a.txt src/in-link && ln -s /etc/passwd out-link"],
  ["replaces a file with a link", "rm README.md && ln -s /etc/hostname README.md"],
  ["removes a folder and makes it again", "rm -rf src && mkdir src && echo fresh > src/c.txt"],
  ["replaces a folder with a file", "rm -rf src && echo flat > src"],
];

describe.if(process.platform === "linux")("every change a command makes is journaled and undone byte for byte", () => {
  for (const [label, script] of CHANGES) {
    test.concurrent(`a command that ${label}`, async () => {
      const root = repository();
      const before = snapshot(root);
      const result = await command(root, ["sh", "-c", script], { runId: "r1" });
      expect(result).toContain("Workspace files it changed (in the undo journal: glassbox undo restores them):");
      expect(result).not.toContain("not in the undo journal");
      expect(snapshot(root)).not.toEqual(before);
      const undone = await undo(root, "r1");
      expect(undone.filter((file) => file.action === "skipped")).toEqual([]);
      // Folders a command made stay (undo restores files), empty: the files are byte for byte what they were.
      const after = snapshot(root);
      expect(Object.fromEntries(Object.entries(after).filter(([, kind]) => !kind.startsWith("folder")))).toEqual(
        Object.fromEntries(Object.entries(before).filter(([, kind]) => !kind.startsWith("folder"))),
      );
    }, SLOW);
  }

  test.concurrent("a folder removed and made again inside the command holds only what the command left in it", async () => {
    const root = repository();
    await command(root, ["sh", "-c", "rm -rf src && mkdir src && echo fresh > src/c.txt"], { runId: "r1" });
    expect(readdirSync(join(root, "src"))).toEqual(["c.txt"]);
  }, SLOW);

  test.concurrent("the result names each change with its size", async () => {
    const root = repository();
    const result = await command(root, ["sh", "-c", "echo 12345 > made.txt; rm src/a.txt; chmod 755 src/run.sh; ln -s /etc/passwd out"], { runId: "r1" });
    expect(result.split("\n")[1]).toBe(
      "Workspace files it changed (in the undo journal: glassbox undo restores them): made.txt (created, 6 bytes), out (created link, 11 bytes), src/a.txt (deleted, 2 bytes), src/run.sh (re-moded).",
    );
    // The overlay's folders are gone, the kernel's work folder (no rights) included.
    expect(readdirSync(join(root, ".glassbox", "tmp"))).toEqual([]);
  }, SLOW);

  test.concurrent("a link a command leaves pointing out is journaled, and no tool follows it out", async () => {
    const root = repository();
    await command(root, ["ln", "-s", "/etc", "etc-link"], { runId: "r1" });
    expect(() => new Workspace(root).resolve("etc-link/passwd")).toThrow(/outside the workspace|link/);
    expect((await undo(root, "r1")).map((file) => file.action)).toEqual(["removed"]);
  }, SLOW);

  test.concurrent("killed at its timeout, what it had changed is journaled and undone", async () => {
    const root = repository();
    const before = snapshot(root);
    const marker = unique();
    const result = await command(root, ["sh", "-c", `echo partial > README.md; exec sleep 30.${marker}`], { runId: "r1", timeout_seconds: 1 });
    expect(result).toContain("timed out after 1s");
    expect(result).toContain("README.md (changed, 8 bytes)");
    await undo(root, "r1");
    expect(snapshot(root)).toEqual(before);
  }, SLOW);

  test.concurrent("10,000 files written into a git-ignored folder are applied without journal copies, and counted", async () => {
    const root = repository();
    const result = await command(root, ["sh", "-c", "mkdir -p build && cd build && seq 1 10000 | xargs touch && echo x > ../README.md"], { runId: "r1" });
    expect(result).toContain("README.md (changed, 2 bytes). 10000 files in git-ignored folders were written without journal copies.");
    expect(readdirSync(join(root, "build")).length).toBe(10_000);
    expect(readdirSync(join(root, ".glassbox", "undo", "r1")).length).toBe(2);
  }, SLOW);

  test.concurrent("a .env at any depth is hidden from a command, as the file tools refuse it", async () => {
    const root = repository((at) => {
      mkdirSync(join(at, "build", "deep"), { recursive: true });
      writeFileSync(join(at, "build", "deep", ".env.local"), `X=${NESTED_SECRET}\n`);
    });
    const result = await command(root, ["sh", "-c", "cat sub/.env build/deep/.env.local; ls -a sub"]);
    expect(result).not.toContain(NESTED_SECRET);
    expect(result).toContain(".env");
  }, SLOW);
});
