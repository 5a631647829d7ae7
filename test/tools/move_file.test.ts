import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorkspace } from "../helpers/workspace.ts";
import { expectRefused, gate, recordingApprover } from "./harness.ts";
import { ChangeJournal } from "../../src/files/journal.ts";
import { applyUndo, planLines, planUndo } from "../../src/files/restore.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { diffLines } from "../../src/tui/diff-lines.ts";
import type { Verdict } from "../../src/core/checkpoint.ts";

const RUN = "20260101T000000-move";

function setUp(options: Parameters<typeof gate>[1] = { allow: ["move_file"] }) {
  const ws = makeWorkspace();
  const g = gate(ws.root, options);
  g.checkpoint.journal = new ChangeJournal(new Workspace(ws.root).root, RUN);
  return { ws, g, workspace: new Workspace(ws.root) };
}

const bytes = (root: string, path: string) => readFileSync(join(root, path));
const mode = (root: string, path: string) => statSync(join(root, path)).mode & 0o777;

describe("move_file", () => {
  test("moves bytes and mode into a new folder; the approval shows the two names", async () => {
    const { approver, requests } = recordingApprover("yes");
    const { ws, g } = setUp({ approver });
    const content = Buffer.from("#!/bin/sh\r\necho caf\xe9\r\n", "latin1");
    writeFileSync(join(ws.root, "run.sh"), content);
    chmodSync(join(ws.root, "run.sh"), 0o755);
    const verdict = await g.call("move_file", { from: "run.sh", to: "bin/run.sh" });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toBe("Moved run.sh to bin/run.sh; the user can move it back with glassbox undo.");
    expect(existsSync(join(ws.root, "run.sh"))).toBe(false);
    expect(bytes(ws.root, "bin/run.sh")).toEqual(content);
    expect(mode(ws.root, "bin/run.sh")).toBe(0o755);
    expect(requests[0]!.target).toBe("run.sh → bin/run.sh");
    const shown = diffLines(requests[0]!.change!).map((line) => line.text);
    expect(shown).toEqual(["run.sh → bin/run.sh", "(the content moves unchanged)"]);
  });

  test("undo moves it back byte for byte and removes the new name", async () => {
    const { ws, g, workspace } = setUp();
    writeFileSync(join(ws.root, "a.txt"), "alpha\n");
    chmodSync(join(ws.root, "a.txt"), 0o640);
    await g.call("move_file", { from: "a.txt", to: "b.txt" });
    expect(planLines(planUndo(workspace, RUN), false)).toEqual(["would restore a.txt", "would remove b.txt, which the run created"]);
    applyUndo(workspace, RUN, { force: false });
    expect(bytes(ws.root, "a.txt").toString()).toBe("alpha\n");
    expect(mode(ws.root, "a.txt")).toBe(0o640);
    expect(existsSync(join(ws.root, "b.txt"))).toBe(false);
  });

  test("an existing target is refused without overwrite, before anyone is asked", async () => {
    const { approver, requests } = recordingApprover("yes");
    const { ws, g } = setUp({ approver });
    writeFileSync(join(ws.root, "a.txt"), "a");
    writeFileSync(join(ws.root, "b.txt"), "b");
    expectRefused(await g.call("move_file", { from: "a.txt", to: "b.txt" }), ws, "`to`", "already exists", "overwrite: true");
    expect(requests).toHaveLength(0);
    expect(bytes(ws.root, "b.txt").toString()).toBe("b");
    expect(bytes(ws.root, "a.txt").toString()).toBe("a");
  });

  test("overwrite: true replaces the target; the diff shows the target changing; undo restores both", async () => {
    const { approver, requests } = recordingApprover("yes");
    const { ws, g, workspace } = setUp({ approver });
    writeFileSync(join(ws.root, "a.txt"), "new text\n");
    writeFileSync(join(ws.root, "b.txt"), "old text\n");
    const verdict = await g.call("move_file", { from: "a.txt", to: "b.txt", overwrite: true });
    expect(verdict.content).toBe("Moved a.txt to b.txt, replacing the file that was there; the user can move it back with glassbox undo.");
    expect(requests[0]!.change).toEqual({ path: "b.txt", from: "a.txt", before: "old text\n", after: "new text\n" });
    expect(diffLines(requests[0]!.change!).map((line) => line.text)).toEqual(["a.txt → b.txt (overwrites b.txt)", "--- b.txt\tnow", "+++ b.txt\tafter", "@@ -1,1 +1,1 @@", "-old text", "+new text"]);
    applyUndo(workspace, RUN, { force: false });
    expect(bytes(ws.root, "a.txt").toString()).toBe("new text\n");
    expect(bytes(ws.root, "b.txt").toString()).toBe("old text\n");
  });

  test("a target that appears while the move waits for approval is not overwritten", async () => {
    const { ws } = setUp();
    writeFileSync(join(ws.root, "a.txt"), "a");
    const g = gate(ws.root, {
      approver: async () => {
        writeFileSync(join(ws.root, "b.txt"), "made meanwhile");
        return "yes";
      },
    });
    expectRefused(await g.call("move_file", { from: "a.txt", to: "b.txt" }), ws, "`to`", "appeared while the call waited");
    expect(bytes(ws.root, "b.txt").toString()).toBe("made meanwhile");
    expect(bytes(ws.root, "a.txt").toString()).toBe("a");
  });

  const refusals: Array<[label: string, args: Record<string, unknown>, mentions: string[]]> = [
    ["`from` outside the workspace", { from: "../outside.txt", to: "x.txt" }, ["`from`", "outside the workspace"]],
    ["`to` outside the workspace", { from: "a.txt", to: "../stolen.txt" }, ["`to`", "outside the workspace"]],
    ["`to` absolute", { from: "a.txt", to: "/tmp/stolen.txt" }, ["`to`", "absolute"]],
    ["`from` off limits", { from: ".env", to: "env.txt" }, ["`from`", "off limits"]],
    ["`to` off limits", { from: "a.txt", to: ".git/hooks/pre-commit" }, ["`to`", "off limits"]],
    ["`to` under .glassbox", { from: "a.txt", to: ".glassbox/undo/x/1.before" }, ["`to`", "off limits"]],
    ["`to` the same file", { from: "a.txt", to: "./a.txt" }, ["`to`", "already is"]],
    ["`from` a folder", { from: "dir", to: "dir2" }, ["`from`", "is a folder"]],
    ["`to` a folder", { from: "a.txt", to: "dir", overwrite: true }, ["`to`", "not a regular file"]],
  ];
  for (const [label, args, mentions] of refusals) {
    test(`refused before approval: ${label}`, async () => {
      const { approver, requests } = recordingApprover("yes");
      const { ws, g } = setUp({ approver });
      writeFileSync(join(ws.root, "a.txt"), "a");
      writeFileSync(join(ws.root, ".env"), "SECRET=1");
      mkdirSync(join(ws.root, "dir"));
      expectRefused(await g.call("move_file", args), ws, ...mentions);
      expect(requests).toHaveLength(0);
      expect(bytes(ws.root, "a.txt").toString()).toBe("a");
    });
  }

  describe("rules: move_file:GLOB must match both paths to allow, either to deny", () => {
    const rows: Array<[allow: string[], deny: string[], from: string, to: string, decision: Verdict["decision"]]> = [
      [["move_file:src/**"], [], "src/a.ts", "src/b.ts", "allowed"],
      [["move_file:src/**"], [], "src/a.ts", "lib/a.ts", "denied"], // asks; nobody to ask
      [["move_file:src/**"], [], "lib/a.ts", "src/a.ts", "denied"],
      [["move_file"], ["move_file:src/keep.ts"], "src/keep.ts", "lib/keep.ts", "denied"],
      [["move_file"], ["move_file:src/keep.ts"], "lib/a.ts", "src/keep.ts", "denied"],
      [["move_file"], ["move_file:src/keep.ts"], "src/a.ts", "lib/a.ts", "allowed"],
    ];
    for (const [allow, deny, from, to, decision] of rows) {
      test(`--allow ${allow} --deny ${deny.join(",") || "-"}: ${from} → ${to} is ${decision}`, async () => {
        const ws = makeWorkspace();
        for (const dir of ["src", "lib"]) mkdirSync(join(ws.root, dir), { recursive: true });
        writeFileSync(join(ws.root, from), "x");
        const verdict = await gate(ws.root, { allow, deny }).call("move_file", { from, to });
        expect(verdict.decision).toBe(decision);
        expect(existsSync(join(ws.root, to))).toBe(decision === "allowed");
      });
    }
  });
});
