import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Workspace } from "../../src/tools/workspace.ts";
import { ChangeJournal, digest, readJournal, undoFolder } from "../../src/undo/journal.ts";
import { planUndo } from "../../src/undo/restore.ts";
import { FakeClock } from "../helpers/run.ts";
import { tempFolder } from "../helpers/workspace.ts";

function setUp() {
  const root = tempFolder("journal");
  const workspace = new Workspace(root);
  const journal = new ChangeJournal(workspace.root, "20260101T000000-test");
  const context = { workspace, clock: new FakeClock(), signal: new AbortController().signal, todo: [], journal };
  return { root: workspace.root, workspace, journal, context };
}

describe("the undo journal", () => {
  test("saves the exact bytes that were there before the write, and the digest of what was written", () => {
    const { root, workspace, journal } = setUp();
    const bytes = Buffer.from([0xff, 0x00, 0x41, 0x0a]);
    writeFileSync(join(root, "data.bin"), bytes);
    journal.saveBefore("write_file", workspace.resolve("data.bin"), "text now\n");
    const [change] = readJournal(root, journal.runId)!.changes;
    expect(change).toMatchObject({ seq: 1, tool: "write_file", path: "data.bin", before: { copy: "1.before", sha256: digest(bytes) }, after_sha256: digest("text now\n") });
    expect(readFileSync(join(undoFolder(root, journal.runId), "1.before"))).toEqual(bytes);
  });

  test("a write announced and then failed leaves no change to undo", () => {
    const { root, workspace, journal } = setUp();
    journal.saveBefore("write_file", workspace.resolve("notes.md"), "x").failed();
    expect(readJournal(root, journal.runId)!.changes).toEqual([]);
    expect(planUndo(workspace, journal.runId)).toEqual({ runId: journal.runId, files: [], alreadyUndone: null });
  });

  test("when what is there cannot be saved, nothing is written", () => {
    const { root, workspace, journal } = setUp();
    const target = workspace.resolve("notes.md");
    // A folder appeared where the file should go: it cannot be copied, so nothing is announced.
    mkdirSync(join(root, "notes.md"));
    expect(() => journal.saveBefore("write_file", target, "x")).toThrow();
    expect(readJournal(root, journal.runId)).toBeNull();
  });

  test("a run without writes has no journal at all", () => {
    const { root, journal } = setUp();
    expect(readJournal(root, journal.runId)).toBeNull();
  });
});
