import { describe, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { join } from "node:path";
import { CAN_MOUNT, inOwnMounts, tmpfs } from "../helpers/own-mount.ts";
import { RUN_ID } from "../helpers/fault-scenes.ts";
import { makeWorkspace, tempFolder } from "../helpers/workspace.ts";
import { gate } from "../tools/harness.ts";
import { ChangeJournal, readJournal } from "../../src/files/journal.ts";
import { applyUndo, outcomeLines } from "../../src/files/restore.ts";
import { Workspace } from "../../src/files/workspace.ts";

const SKIPPED = "skipped notes.txt: not restored: no space left on device, and it is unchanged";

describe("undo on a full disk", () => {
  test.skipIf(!CAN_MOUNT)("a file it cannot restore (a real full disk: a small tmpfs) is skipped, named and unchanged; nothing crashes and nothing is left", () => {
    const disk = join(tempFolder("undo-full"), "disk");
    const { seen } = inOwnMounts(tmpfs(disk, "256k"), "undo-full-disk", disk);
    expect(seen).toEqual({ lines: [SKIPPED], log: `.glassbox/undo/${RUN_ID}/journal.jsonl`, unchanged: true, files: ["notes.txt"], temporaries: [] });
  });

  test("an undo it cannot record is said (log null), and the journal keeps whole lines", async () => {
    // Injected: the undo's own line fits in the page its journal already holds, so a real disk
    // cannot be filled right there; fsync's ENOSPC (as NFS and thin volumes report a full disk) can.
    const ws = makeWorkspace();
    fs.writeFileSync(join(ws.root, "notes.txt"), "old\n");
    const g = gate(ws.root, { allow: ["write_file"] });
    g.checkpoint.journal = new ChangeJournal(new Workspace(ws.root).root, RUN_ID);
    await g.call("write_file", { path: "notes.txt", content: "short\n" });
    const full = spyOn(fs, "fsyncSync").mockImplementation(() => {
      throw Object.assign(new Error("ENOSPC: no space left on device, fsync"), { code: "ENOSPC" });
    });
    try {
      const { plan, entry, log } = applyUndo(new Workspace(ws.root), RUN_ID, { force: false });
      expect(outcomeLines(plan, entry!)).toEqual([SKIPPED]);
      expect(log).toBeNull();
    } finally {
      full.mockRestore();
    }
    expect(fs.readFileSync(join(ws.root, "notes.txt"), "utf8")).toBe("short\n");
    expect(readJournal(ws.root, RUN_ID)).toMatchObject({ torn: null, undos: [] });
  });
});
