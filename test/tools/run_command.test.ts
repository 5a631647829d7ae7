/**
 * run_command through the real checkpoint, unsandboxed (the sandbox's own rules are proven as an
 * unprivileged user in test/sandbox/run-command.test.ts): argv without a shell, the timeout and
 * its bound, the tree killed, `cwd` confined, the output clipped, the changed files listed, and
 * the rules and approvals of CONTRACT.md's run_command paragraph.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorkspace, type TestWorkspace } from "../helpers/workspace.ts";
import { expectRefused, gate, recordingApprover } from "./harness.ts";
import { call, runScripted } from "../helpers/run.ts";
import { leftovers, unique } from "../helpers/processes.ts";
import { makeRunCommand } from "../../src/tools/run_command.ts";
import { defaultTools } from "../../src/tools/index.ts";
import { DIRECT, UNCONFINED } from "../../src/sandbox/detect.ts";
import { ChangeJournal, readJournal } from "../../src/files/journal.ts";
import { ownFiles } from "../../src/tools/command-snapshot.ts";
import { applyUndo } from "../../src/files/restore.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { workspaceFiles } from "../../src/tools/tree/walk.ts";
import type { Sandbox } from "../../src/sandbox/sandbox.ts";
import { overlayProblem } from "../../src/sandbox/overlay.ts";
import { READ_ONLY_UNENFORCED } from "../../src/core/policy.ts";

const BUN = process.execPath;
const SECRET_NAME = "GLASSBOX_TEST_COMMAND_SECRET";
const SECRET_VALUE = "s3cr3t-command-41d9";

let ws: TestWorkspace;
const markers: string[] = [];
beforeAll(() => {
  ws = makeWorkspace();
  Bun.spawnSync(["git", "init", "-q"], { cwd: ws.root });
});
afterAll(() => {
  for (const marker of markers) Bun.spawnSync(["pkill", "-KILL", "-f", marker]);
  delete process.env[SECRET_NAME];
});

/** A gate whose person says yes to everything, so a test is about the run, not the asking. */
const approved = (root = ws.root, maxResultChars?: number) => gate(root, { approver: recordingApprover("yes").approver, maxResultChars });

describe("argv only, never a shell", () => {
  test("shell syntax reaches the program as plain words: no expansion, no second command", async () => {
    const verdict = await approved().call("run_command", { argv: ["echo", "$HOME", "&&", "touch", "pwned", ";", "`id`", "*"] });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toContain("\n$HOME && touch pwned ; `id` *\n");
    expect(existsSync(join(ws.root, "pwned"))).toBe(false);
  });

  test("the exit code is given, a failure included", async () => {
    const passed = await approved().call("run_command", { argv: ["true"] });
    expect(passed.content).toMatch(/^The command `true` passed \(exit 0, [\d.]+s\)\./);
    const failed = await approved().call("run_command", { argv: [BUN, "-e", "process.exit(3)"] });
    expect(failed.content).toMatch(/failed \(exit 3, [\d.]+s\)\./);
  });

  test("a program that is not installed could not start, and the model is told to use another", async () => {
    const verdict = await approved().call("run_command", { argv: ["no-such-program-7c1e", "x"] });
    expect(verdict.content).toStartWith("The command `no-such-program-7c1e x` could not start: its command `no-such-program-7c1e` was not found or cannot run; it is not installed here or not on PATH; use another command.");
  });

  test("secrets in glassbox's environment do not reach the command", async () => {
    process.env[SECRET_NAME] = SECRET_VALUE;
    const verdict = await approved().call("run_command", { argv: ["env"] });
    expect(verdict.content).toContain("PATH=");
    expect(verdict.content).not.toContain(SECRET_VALUE);
  });

  const refusals: Array<[label: string, args: unknown, mention: string]> = [
    ["an empty argv", { argv: [] }, "`argv`"],
    ["an empty program", { argv: ["", "x"] }, "`argv`"],
    ["a command line as one string", { argv: "ls -la" }, "`argv`"],
    ["a NUL byte in an argument", { argv: ["echo", "a\u0000b"] }, "`argv`"],
    ["a timeout over 600 s", { argv: ["true"], timeout_seconds: 601 }, "`timeout_seconds`"],
    ["a timeout of 0", { argv: ["true"], timeout_seconds: 0 }, "`timeout_seconds`"],
    ["an unknown argument", { argv: ["true"], shell: true }, "`shell`"],
  ];
  for (const [label, args, mention] of refusals) {
    test(`${label} is refused, naming the argument`, async () => {
      expectRefused(await approved().call("run_command", args), ws, mention);
    });
  }
});

describe("the clock and the process tree", () => {
  test("the person sees the default timeout of 120 s, and the one the model asked for", async () => {
    const { approver, requests } = recordingApprover("no");
    const ask = gate(ws.root, { approver });
    await ask.call("run_command", { argv: ["npm", "test"] });
    await ask.call("run_command", { argv: ["npm", "test"], timeout_seconds: 600 });
    expect(requests.map((request) => request.details!.find((line) => line.startsWith("timeout:")))).toEqual([
      "timeout:   120 s, then it and everything it started are killed",
      "timeout:   600 s, then it and everything it started are killed",
    ]);
  });

  test.concurrent("timeout_seconds 1: the command and its children are killed, nothing left", async () => {
    const marker = unique();
    markers.push(marker);
    const started = performance.now();
    const verdict = await approved().call("run_command", { argv: ["bash", "-c", `sleep 30.${marker} & sleep 30.${marker}; wait`], timeout_seconds: 1 });
    const took = performance.now() - started;
    expect(verdict.content).toStartWith(`The command \`bash -c sleep 30.${marker} & sleep 30.${marker}; wait\` timed out after 1s and was stopped.`);
    expect(took).toBeGreaterThan(900);
    expect(took).toBeLessThan(15_000);
    expect(await leftovers(marker)).toEqual([]);
  }, 25_000);

  test.concurrent("a background process left by a command that exited is killed, and its open output is cut after the grace", async () => {
    const marker = unique();
    markers.push(marker);
    const verdict = await approved().call("run_command", { argv: ["bash", "-c", `sleep 30.${marker} & echo started`] });
    expect(verdict.content).toMatch(/^The command `.*` passed \(exit 0, [\d.]+s\)\./);
    expect(verdict.content).toContain("started");
    expect(await leftovers(marker)).toEqual([]);
  }, 25_000);

  test.concurrent("stopping the run stops the command and its children", async () => {
    const marker = unique();
    markers.push(marker);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 300);
    const verdict = await approved().call("run_command", { argv: ["bash", "-c", `sleep 30.${marker} & sleep 30.${marker}; wait`], timeout_seconds: 60 }, abort.signal);
    expect(verdict.content).toContain("was stopped because the run ended.");
    expect(await leftovers(marker)).toEqual([]);
  }, 25_000);
});

describe("cwd: where it starts, confined like a path argument", () => {
  test("cwd moves where the command starts", async () => {
    const verdict = await approved().call("run_command", { argv: ["pwd"], cwd: "src" });
    expect(verdict.content).toMatch(/\/src\n$/);
    const root = await approved().call("run_command", { argv: ["pwd"] });
    expect(root.content).not.toMatch(/\/src\n$/);
  });

  test("a program given by a relative path is found from cwd", async () => {
    const folder = join(ws.root, "scripts-rel");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "hello.sh"), "#!/bin/sh\necho hello-from-cwd\n", { mode: 0o755 });
    const verdict = await approved().call("run_command", { argv: ["./hello.sh"], cwd: "scripts-rel" });
    expect(verdict.content).toContain("hello-from-cwd");
  });

  const escapes: Array<[label: string, cwd: string | (() => string), mention: string | RegExp]> = [
    ["..", "..", "outside the workspace"],
    ["a path through ..", "src/../..", "outside the workspace"],
    ["an absolute path", "/tmp", "not an absolute path"],
    [".git", ".git", "off limits"],
    [".glassbox inside a folder", "src/.glassbox", "off limits"],
    [
      "a link leading out",
      () => {
        symlinkSync(ws.outside, join(ws.root, "out-link"));
        return "out-link";
      },
      "through a link",
    ],
    ["a folder that does not exist", "no/such/folder", "names no folder"],
    ["a file", "package.json", "is a file"],
  ];
  for (const [label, cwd, mention] of escapes) {
    test(`cwd ${label} is refused before anyone is asked`, async () => {
      const { approver, requests } = recordingApprover("yes");
      const verdict = await gate(ws.root, { approver }).call("run_command", { argv: ["pwd"], cwd: typeof cwd === "string" ? cwd : cwd() });
      expectRefused(verdict, ws, "`cwd`", mention);
      expect(requests).toEqual([]);
    });
  }
});

describe("the result", () => {
  const JOURNALED = "Workspace files it changed (in the undo journal: glassbox undo restores them):";

  test("unconfined, a snapshot taken before the command journals what it added, changed and deleted; ignored folders are not looked at", async () => {
    const mine = makeWorkspace();
    const verdict = await approved(mine.root).call("run_command", {
      argv: ["sh", "-c", "echo new > made.txt; echo more >> src/version.ts; rm package.json; mkdir -p node_modules/x && echo dep > node_modules/x/a.js"],
    });
    expect(verdict.content.split("\n")[1]).toBe(`${JOURNALED} made.txt (created, 4 bytes), src/version.ts (changed, 832 bytes), package.json (deleted, 126 bytes).`);
  });

  test("its tool_call event lists the changes sorted by code unit, and nothing when it was read-only or denied", async () => {
    const mine = makeWorkspace();
    Bun.spawnSync(["git", "init", "-q"], { cwd: mine.root });
    const run = await runScripted(
      [
        call("run_command", { argv: ["sh", "-c", "echo new > made.txt; echo more >> src/version.ts; rm package.json; ln -s made.txt Link"] }),
        call("run_command", { argv: ["git", "status"] }),
        call("run_command", { argv: ["touch", "x"] }),
        { content: "done" },
      ],
      { workspace: mine.root, allow: ["run_command:sh *"], approver: async (request) => (request.target === "touch x" ? "no" : "yes") },
    );
    expect(run.calls.map((event) => [event.decision, event.changes, event.ignored_changes])).toEqual([
      [
        "allowed",
        [
          { path: "Link", change: "created" },
          { path: "made.txt", change: "created" },
          { path: "package.json", change: "deleted" },
          { path: "src/version.ts", change: "changed" },
        ],
        0,
      ],
      // The built-in read-only rule allows it, and with no sandbox to hold the workspace read-only it is not run.
      ["refused", [], 0],
      ["denied", [], 0],
    ]);
  });

  test("a command that changes nothing says so", async () => {
    const verdict = await approved().call("run_command", { argv: ["cat", "package.json"] });
    expect(verdict.content.split("\n")[1]).toBe(`${JOURNALED} none.`);
  });

  test("unconfined, every change is undone byte for byte from the snapshot: writes, deletes, chmods, links", async () => {
    const mine = makeWorkspace();
    writeFileSync(join(mine.root, "run.sh"), "#!/bin/sh\n", { mode: 0o644 });
    const read = () => Object.fromEntries(workspaceFiles(mine.root).map((path) => [path, `${statSync(join(mine.root, path)).mode & 0o777} ${readFileSync(join(mine.root, path), "utf8")}`]));
    const before = read();
    const session = approved(mine.root);
    session.checkpoint.journal = new ChangeJournal(mine.root, "r1");
    const verdict = await session.call("run_command", { argv: ["sh", "-c", "echo x > package.json; rm src/version.ts; chmod 755 run.sh; ln -s /etc/passwd out; mv README.md R.md"] });
    expect(verdict.content.split("\n")[1]).toBe(
      `${JOURNALED} R.md (created, ${before["README.md"]!.length - 4} bytes), out (created link, 11 bytes), package.json (changed, 2 bytes), run.sh (re-moded), README.md (deleted, ${before["README.md"]!.length - 4} bytes), src/version.ts (deleted, ${before["src/version.ts"]!.length - 4} bytes).`,
    );
    const { entry } = applyUndo(new Workspace(mine.root), "r1", { force: false });
    expect(entry!.files.filter((file) => file.action === "skipped")).toEqual([]);
    expect(read()).toEqual(before);
    expect(existsSync(join(mine.root, "out"))).toBe(false);
  });

  test("a model's edit and a command's change to the same file are one journal, in one order: undo gives back the file as it was before both", async () => {
    const mine = makeWorkspace();
    const original = readFileSync(join(mine.root, "README.md"));
    const session = gate(mine.root, { approver: recordingApprover("yes").approver });
    session.checkpoint.journal = new ChangeJournal(mine.root, "r1");
    expect((await session.call("write_file", { path: "README.md", content: "edited by the model\n" })).decision).toBe("allowed");
    expect((await session.call("run_command", { argv: ["sh", "-c", "echo changed by a command >> README.md; echo new > made.txt"] })).decision).toBe("allowed");
    expect(readJournal(mine.root, "r1")!.changes.map((change) => `${change.seq} ${change.tool} ${change.path}`)).toEqual(["1 write_file README.md", "2 run_command README.md", "3 run_command made.txt"]);
    applyUndo(new Workspace(mine.root), "r1", { force: false });
    expect(readFileSync(join(mine.root, "README.md"))).toEqual(original);
    expect(existsSync(join(mine.root, "made.txt"))).toBe(false);
  });

  test("past the snapshot's bound a command a rule allows is asked, and an approved one is named as not in the undo journal", async () => {
    const mine = makeWorkspace();
    const small = makeRunCommand(UNCONFINED, { max_files: 2, max_bytes: 1_000_000 });
    const { approver, requests } = recordingApprover("yes");
    const verdict = await gate(mine.root, { approver, allow: ["run_command:sh *"], tools: [small] }).call("run_command", { argv: ["sh", "-c", "echo new > made.txt"] });
    expect(requests[0]!.why).toBe("run_command may write and its changes cannot be journaled here: the workspace holds over 2 files");
    expect(requests[0]!.details).toContain("undo:      files it writes are NOT in the undo journal (the workspace holds over 2 files); glassbox undo cannot restore them");
    expect(verdict.content.split("\n")[1]).toBe("Workspace files it changed (not in the undo journal): made.txt (new).");
    const headless = await gate(mine.root, { allow: ["run_command:sh *"], tools: [small] }).call("run_command", { argv: ["sh", "-c", "echo again > made.txt"] });
    expect(headless.decision).toBe("denied");
  });

  test("a workspace that grows past the bound while the person is asked: the command does not run unjournaled", async () => {
    const mine = makeWorkspace();
    const small = makeRunCommand(UNCONFINED, { max_files: ownFiles(mine.root).length + 2, max_bytes: 1_000_000 });
    const growing = async () => {
      for (const name of ["g1", "g2", "g3"]) writeFileSync(join(mine.root, `${name}.txt`), name);
      return "yes" as const;
    };
    const verdict = await gate(mine.root, { approver: growing, tools: [small] }).call("run_command", { argv: ["touch", "after.txt"] });
    expect(verdict.decision).toBe("refused");
    expect(verdict.content).toBe("Refused: The command `touch after.txt` was not run: no snapshot of the workspace could be taken for undo (it may have grown past the bound); tell the user.");
    expect(existsSync(join(mine.root, "after.txt"))).toBe(false);
  });

  test("past the bound, a file rewritten with the same size is noticed by its time", async () => {
    const mine = makeWorkspace();
    writeFileSync(join(mine.root, "same.txt"), "aaaa");
    const small = makeRunCommand(UNCONFINED, { max_files: 2, max_bytes: 1_000_000 });
    const verdict = await gate(mine.root, { approver: recordingApprover("yes").approver, tools: [small] }).call("run_command", { argv: ["sh", "-c", "sleep 0.05; printf bbbb > same.txt"] });
    expect(verdict.content.split("\n")[1]).toBe("Workspace files it changed (not in the undo journal): same.txt (changed).");
  });

  test("long output is clipped like any result, its head and its tail kept", async () => {
    const verdict = await approved(ws.root, 2000).call("run_command", { argv: [BUN, "-e", 'console.log("HEAD"); console.log("x".repeat(50000)); console.log("TAIL")'] });
    expect(verdict.content.length).toBeLessThanOrEqual(2000);
    expect(verdict.content).toContain("characters cut");
    expect(verdict.content).toStartWith("The command");
    expect(verdict.content).toContain("TAIL");
  });
});

describe("rules and approval", () => {
  test("headless, with no rule: denied, and nothing runs", async () => {
    const verdict = await gate(ws.root).call("run_command", { argv: ["touch", "headless.txt"] });
    expect(verdict.decision).toBe("denied");
    expect(verdict.reason).toBe("run_command on touch headless.txt needs approval and no rule allows it; do not retry it, tell the user what you wanted to change.");
    expect(existsSync(join(ws.root, "headless.txt"))).toBe(false);
  });

  test("with no sandbox, read-only git asks (nothing could keep it read-only), saying why; headless it is denied", async () => {
    const { approver, requests } = recordingApprover("no");
    await gate(ws.root, { approver }).call("run_command", { argv: ["git", "status", "--short"] });
    expect(requests[0]!.why).toBe(`run_command:ro:git status* matches, but ${READ_ONLY_UNENFORCED}`);
    expect((await gate(ws.root).call("run_command", { argv: ["git", "status", "--short"] })).decision).toBe("denied");
  });

  test("a read-only allow that reaches a command with no sandbox does not run it", async () => {
    const allowed = await gate(ws.root, { sandboxed: true, allow: ["run_command:ro:touch *"] }).call("run_command", { argv: ["touch", "ro-unsandboxed.txt"] });
    expect(allowed.decision).toBe("refused");
    expect(allowed.content).toBe("Refused: The command `touch ro-unsandboxed.txt` was not run: a read-only rule allowed it, but no sandbox here can keep the workspace read-only; ask the user.");
    expect(existsSync(join(ws.root, "ro-unsandboxed.txt"))).toBe(false);
  });

  test("git push and sudo are denied even under --allow run_command, and nothing runs", async () => {
    const wide = gate(ws.root, { allow: ["run_command"] });
    for (const argv of [["git", "push", "origin", "main"], ["sudo", "touch", "x"]]) {
      const verdict = await wide.call("run_command", { argv });
      expect(verdict.decision).toBe("denied");
      expect(verdict.reason).toBe(`run_command is denied by the rule run_command:${argv[0] === "sudo" ? "sudo" : "git push"}*; do not retry it, choose another approach.`);
    }
    expect((await wide.call("run_command", { argv: ["touch", "wide.txt"] })).decision).toBe("allowed");
    expect(existsSync(join(ws.root, "wide.txt"))).toBe(true);
  });

  test("a rule allows one command line and not another", async () => {
    const ruled = gate(ws.root, { allow: ["run_command:echo one *"] });
    expect((await ruled.call("run_command", { argv: ["echo", "one", "a/b"] })).decision).toBe("allowed");
    expect((await ruled.call("run_command", { argv: ["echo", "two", "a/b"] })).decision).toBe("denied");
  });

  test("the person is shown the argv, the folder, the sandbox and that undo restores the command's writes", async () => {
    const { approver, requests } = recordingApprover("no");
    await gate(ws.root, { approver, tools: [makeRunCommand(DIRECT)] }).call("run_command", { argv: ["npx", "vitest", "run", "a.test.ts"], cwd: "src" });
    const [request] = requests;
    expect(request!.target).toBe("npx vitest run a.test.ts");
    expect(request!.why).toBe("run_command runs a command and matches no allow rule");
    expect(request!.details).toEqual([
      'command:   ["npx","vitest","run","a.test.ts"] (no shell)',
      "starts in: src/ (it may still touch the whole workspace)",
      "sandbox:   none: it runs unconfined, with your permissions, your secrets and the network",
      "timeout:   120 s, then it and everything it started are killed",
      "undo:      its changes are saved in the undo journal; glassbox undo restores them",
    ]);
    expect(request!.sessionRule).toBe("run_command:npx vitest*");
  });

  test("a confining sandbox is named with network off and secrets hidden", async () => {
    const { approver, requests } = recordingApprover("no");
    const bwrapLike = { ...DIRECT, kind: "bwrap" as const };
    await gate(ws.root, { approver, tools: [makeRunCommand(bwrapLike)] }).call("run_command", { argv: ["ls"] });
    expect(requests[0]!.details).toContain("sandbox:   bwrap: network off, secrets hidden (~/.ssh, .env, …), .git read-only, writes only in the workspace, its TMPDIR and ~/.cache");
  });

  test("'always' allows the first two words for the session, says which rule it made, and asks again for other commands", async () => {
    const { approver, requests } = recordingApprover("always");
    const session = gate(ws.root, { approver });
    const first = await session.call("run_command", { argv: ["echo", "hi", "there"] });
    expect(first.decision).toBe("allowed");
    expect(first.reason).toBe("The user allowed run_command:echo hi* for the rest of this session.");
    expect(first.content).toMatch(/^The user allowed run_command:echo hi\* for the rest of this session\.\nThe command `echo hi there` passed/);
    const again = await session.call("run_command", { argv: ["echo", "hi", "again"] });
    expect(again.decision).toBe("allowed");
    expect(again.reason).toBe("");
    expect(again.content).toStartWith("The command `echo hi again` passed");
    expect(requests.length).toBe(1);
    await session.call("run_command", { argv: ["echo", "bye"] });
    expect(requests.length).toBe(2);
    // Nothing else was allowed by it: a write still asks.
    await session.call("write_file", { path: "always.txt", content: "x" });
    expect(requests.map((request) => request.tool)).toEqual(["run_command", "run_command", "write_file"]);
  });

  test("'always' on a command whose first words hold a * is one yes: no rule is made", async () => {
    const { approver, requests } = recordingApprover("always");
    const session = gate(ws.root, { approver });
    const first = await session.call("run_command", { argv: ["ls", "*"] });
    expect(first.decision).toBe("allowed");
    expect(first.reason).toBe("");
    expect(requests[0]!.sessionRule).toBeNull();
    await session.call("run_command", { argv: ["ls", "*"] });
    await session.call("run_command", { argv: ["ls", "-la"] });
    expect(requests.length).toBe(3);
  });

  /** A sandbox that runs the command as it is and records how the workspace was offered to it. */
  function recordingSandbox(kind: "bwrap" | "none", seen: string[]): Sandbox {
    return { kind, command: (argv, rules, env) => (seen.push(rules.access.kind), { argv, cwd: rules.cwd, env }) };
  }

  // Command line → rule, verdict and mode, through the real checkpoint (Codex's execpolicy style).
  const MODES: Array<[rules: string[], argv: string[], answer: "yes" | "no", verdict: string, mode: string | null]> = [
    [[], ["git", "status"], "no", "allowed", "read-only"],
    [[], ["git", "diff", "--output=README.md"], "no", "allowed", "read-only"],
    [["run_command:ro:cat *"], ["cat", "package.json"], "no", "allowed", "read-only"],
    [["run_command:cat *"], ["cat", "package.json"], "no", "allowed", "overlay"],
    [[], ["touch", "x.txt"], "yes", "allowed", "overlay"],
    [[], ["touch", "x.txt"], "no", "denied", null],
    [[], ["git", "commit", "-m", "x"], "yes", "allowed", "overlay"],
  ];
  for (const [rules, argv, answer, verdict, mode] of MODES) {
    test(`rules [${rules.join(", ")}], ${argv.join(" ")}, the person says ${answer}: ${verdict}${mode ? `, the workspace ${mode}` : ""}`, async () => {
      const seen: string[] = [];
      const { approver } = recordingApprover(answer);
      const mine = makeWorkspace();
      const result = await gate(mine.root, { approver, allow: rules, sandboxed: true, tools: [makeRunCommand(recordingSandbox("bwrap", seen))] }).call("run_command", { argv });
      // Where no overlay can be mounted (not Linux, no user namespaces) a command that may write runs in place.
      const expected = mode === "overlay" && overlayProblem(mine.root) !== null ? "direct" : mode;
      expect([result.decision, seen[0] ?? null]).toEqual([verdict, expected]);
    });
  }

  test("run_command is offered whether or not checks are configured", () => {
    expect(defaultTools({}).map((tool) => tool.name)).toContain("run_command");
  });
});
