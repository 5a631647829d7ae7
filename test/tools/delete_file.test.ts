import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorkspace } from "../helpers/workspace.ts";
import { expectRefused, gate, recordingApprover } from "./harness.ts";
import { ChangeJournal, readJournal } from "../../src/files/journal.ts";
import { applyUndo, planLines, planUndo } from "../../src/files/restore.ts";
import { Workspace } from "../../src/files/workspace.ts";

const RUN = "20260101T000000-delete";

function setUp(options: Parameters<typeof gate>[1] = { allow: ["delete_file"] }) {
  const ws = makeWorkspace();
  const g = gate(ws.root, options);
  g.checkpoint.journal = new ChangeJournal(new Workspace(ws.root).root, RUN);
  return { ws, g, workspace: new Workspace(ws.root) };
}

describe("delete_file", () => {
  test("removes the file, after an approval that shows the whole content going", async () => {
    const { approver, requests } = recordingApprover("yes");
    const { ws, g } = setUp({ approver });
    writeFileSync(join(ws.root, "old.txt"), "line 1\nline 2\n");
    const verdict = await g.call("delete_file", { path: "old.txt" });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toBe("Deleted old.txt (14 bytes); the user can bring it back with glassbox undo.");
    expect(existsSync(join(ws.root, "old.txt"))).toBe(false);
    expect(requests[0]!.target).toBe("old.txt");
    expect(requests[0]!.change).toEqual({ path: "old.txt", before: "line 1\nline 2\n", after: null });
  });

  test("undo brings it back byte for byte, mode included; a binary or Latin-1 file too", async () => {
    const { ws, g, workspace } = setUp();
    const binary = Buffer.from([0x00, 0xff, 0xe9, 0x0d, 0x0a, 0x7f]);
    writeFileSync(join(ws.root, "tool.bin"), binary);
    chmodSync(join(ws.root, "tool.bin"), 0o751);
    expect((await g.call("delete_file", { path: "tool.bin" })).decision).toBe("allowed");
    expect(existsSync(join(ws.root, "tool.bin"))).toBe(false);
    expect(readJournal(workspace.root, RUN)!.changes).toMatchObject([{ tool: "delete_file", path: "tool.bin", after_sha256: null, before: { mode: 0o751 } }]);
    expect(planLines(planUndo(workspace, RUN), false)).toEqual(["would restore tool.bin"]);
    const { entry } = applyUndo(workspace, RUN, { force: false });
    expect(entry!.files).toEqual([{ path: "tool.bin", action: "restored" }]);
    expect(readFileSync(join(ws.root, "tool.bin"))).toEqual(binary);
    expect(statSync(join(ws.root, "tool.bin")).mode & 0o777).toBe(0o751);
  });

  test("a file made again at the path after the delete is not overwritten by undo", async () => {
    const { ws, g, workspace } = setUp();
    writeFileSync(join(ws.root, "a.txt"), "before\n");
    await g.call("delete_file", { path: "a.txt" });
    writeFileSync(join(ws.root, "a.txt"), "someone's new file\n");
    const { entry } = applyUndo(workspace, RUN, { force: false });
    expect(entry!.files).toMatchObject([{ path: "a.txt", action: "skipped", reason: "it was created again since glassbox removed it" }]);
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("someone's new file\n");
  });

  const refusals: Array<[label: string, prepare: (root: string) => void, path: string, mentions: string[]]> = [
    ["a folder", (root) => mkdirSync(join(root, "dir")), "dir", ["`path`", "is a folder"]],
    ["a missing file", () => {}, "nope.txt", ["`path`", "there is no `nope.txt`"]],
    ["a link (its target would go)", (root) => (writeFileSync(join(root, "real.txt"), "x"), symlinkSync("real.txt", join(root, "link.txt"))), "link.txt", ["`path`", "is a link"]],
    ["outside the workspace", () => {}, "../outside.txt", ["`path`", "outside the workspace"]],
    ["an off-limits name", (root) => writeFileSync(join(root, ".env"), "SECRET=1"), ".env", ["`path`", "off limits"]],
    ["the journal itself", () => {}, ".glassbox/undo/x", ["`path`", "off limits"]],
  ];
  for (const [label, prepare, path, mentions] of refusals) {
    test(`refused before approval: ${label}`, async () => {
      const { approver, requests } = recordingApprover("yes");
      const { ws, g } = setUp({ approver });
      prepare(ws.root);
      expectRefused(await g.call("delete_file", { path }), ws, ...mentions);
      expect(requests).toHaveLength(0);
    });
  }

  test("rules: delete_file:GLOB matches the path; deny beats allow", async () => {
    const { ws, g } = setUp({ allow: ["delete_file:tmp/**"], deny: ["delete_file:tmp/keep.txt"] });
    mkdirSync(join(ws.root, "tmp"));
    writeFileSync(join(ws.root, "tmp/a.txt"), "a");
    writeFileSync(join(ws.root, "tmp/keep.txt"), "k");
    expect((await g.call("delete_file", { path: "tmp/a.txt" })).decision).toBe("allowed");
    expect((await g.call("delete_file", { path: "tmp/keep.txt" })).decision).toBe("denied");
    expect(existsSync(join(ws.root, "tmp/keep.txt"))).toBe(true);
  });
});
