import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Workspace } from "../../src/files/workspace.ts";
import { ChangeJournal, digest, readJournal, undoFolder } from "../../src/files/journal.ts";
import { applyUndo, outcomeLines, planLines, planUndo } from "../../src/files/restore.ts";
import { JOURNAL_FILE, JournalError } from "../../src/files/journal.ts";
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
    expect(planUndo(workspace, journal.runId)).toEqual({ runId: journal.runId, files: [], alreadyUndone: null, torn: null });
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

/** A run that wrote a.txt and then b.txt through the journal, as the write path does (line, change, done). */
function twoWrites() {
  const { root, workspace, journal } = setUp();
  writeFileSync(join(root, "a.txt"), "a before\n");
  for (const [path, text] of [["a.txt", "a after\n"], ["b.txt", "b after\n"]] as const) {
    const saved = journal.saveBefore("write_file", workspace.resolve(path), text);
    writeFileSync(join(root, path), text);
    saved.done();
  }
  return { root, workspace, journal, path: join(undoFolder(root, journal.runId), JOURNAL_FILE) };
}

describe("a journal a kill or a full disk cut off", () => {
  test("a torn last line is named and left out; the changes the whole lines describe are undone", () => {
    const { root, workspace, journal, path } = twoWrites();
    appendFileSync(path, '{"kind":"change","seq":3,"tool":"write_fi');
    const plan = planUndo(workspace, journal.runId);
    const torn = `line 5 of .glassbox/undo/${journal.runId}/${JOURNAL_FILE}, cut off mid-write (41 bytes: glassbox ended while writing it)`;
    expect(plan.torn).toBe(torn);
    expect(planLines(plan, false)[0]).toBe(`left out ${torn}: the change it announced never began`);
    const { entry } = applyUndo(workspace, journal.runId, { force: false });
    expect(outcomeLines(plan, entry!)).toEqual([`left out ${torn}: the change it announced never began`, "removed b.txt, which the run created", "restored a.txt"]);
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("a before\n");
    // The undo's line follows the whole lines: the journal reads cleanly from then on.
    expect(readJournal(root, journal.runId)).toMatchObject({ torn: null, undos: [{ files: [{ action: "removed" }, { action: "restored" }] }] });
  });

  test("undo removes what a killed write left under .glassbox/tmp/", () => {
    const { root, workspace, journal } = twoWrites();
    const gone = Bun.spawnSync([process.execPath, "-e", "0"]).pid;
    mkdirSync(join(root, ".glassbox", "tmp"));
    writeFileSync(join(root, ".glassbox", "tmp", `${gone}-1.tmp`), "half of a file");
    applyUndo(workspace, journal.runId, { force: false });
    expect(readdirSync(join(root, ".glassbox", "tmp"))).toEqual([]);
  });

  test("a damaged line before the last is not guessed around: undo refuses, naming it", () => {
    const { workspace, journal, path } = twoWrites();
    const lines = readFileSync(path, "utf8").split("\n");
    writeFileSync(path, [lines[0], "garbage", ...lines.slice(1)].join("\n"));
    expect(() => planUndo(workspace, journal.runId)).toThrow(new JournalError(`line 2 of .glassbox/undo/${journal.runId}/${JOURNAL_FILE} is not JSON`));
  });

  test("a change announced and never said done (killed mid-way) is undone whether the file changed or not", () => {
    const { root, workspace, journal } = twoWrites();
    journal.saveBefore("write_file", workspace.resolve("a.txt"), "a third\n");
    expect(readJournal(root, journal.runId)!.unfinished).toEqual(new Set([3]));
    const expected = ["would restore a.txt", "would remove b.txt, which the run created"];
    expect(planLines(planUndo(workspace, journal.runId), false)).toEqual(expected);
    writeFileSync(join(root, "a.txt"), "a third\n");
    expect(planLines(planUndo(workspace, journal.runId), false)).toEqual(expected);
  });

  test("once said done, a change is the only state undo accepts: the file as it was before it is someone's edit", () => {
    const { root, workspace, journal } = twoWrites();
    const saved = journal.saveBefore("write_file", workspace.resolve("b.txt"), "b again\n");
    writeFileSync(join(root, "b.txt"), "b again\n");
    saved.done();
    writeFileSync(join(root, "b.txt"), "b after\n");
    expect(planLines(planUndo(workspace, journal.runId), false)[0]).toBe("would skip b.txt: it was changed since glassbox wrote it (glassbox undo --force restores it and keeps what it holds)");
  });
});
