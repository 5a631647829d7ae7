/**
 * Nothing lost when things go wrong (issue 40): a write killed mid-way leaves nothing in the
 * person's tree and undo restores; a full disk is named in the tool's result and leaves the file
 * unchanged with no partial copy; a filesystem mounted inside the workspace still gets whole
 * writes. The kills are real (a process killed mid-write), and so are the full disks and mounts
 * (a tmpfs in a mount namespace of the test's own: test/helpers/own-mount.ts).
 */
import { describe, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorkspace, tempFolder } from "../helpers/workspace.ts";
import { CAN_MOUNT, inOwnMounts, tmpfs } from "../helpers/own-mount.ts";
import { RUN_ID, filesIn } from "../helpers/fault-scenes.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { applyUndo, outcomeLines } from "../../src/files/restore.ts";
import { removeKilledWriteLeftovers } from "../../src/files/temporary-files.ts";
import { ChangeJournal } from "../../src/files/journal.ts";
import { gate } from "../tools/harness.ts";

const SCENES = join(import.meta.dir, "..", "helpers", "fault-scenes.ts");

describe("a write killed mid-way", () => {
  test("leaves the file as it was and nothing in the person's tree; undo restores the file and clears the leftover", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "a.txt"), "original\n");
    const before = filesIn(ws.root);
    const child = Bun.spawn([process.execPath, SCENES, "hang-mid-write", ws.root], { stdout: "pipe", stderr: "inherit" });
    const { fifo } = JSON.parse((await firstLine(child.stdout)) ?? "{}");
    // The second write is now filling its temporary: once part of it came, kill the writer there
    // (with the reader still open: a closed one would fail the write before the kill).
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    expect(await readSome(reader, child)).toBeGreaterThan(0);
    child.kill("SIGKILL");
    await child.exited;
    closeSync(reader);

    expect(filesIn(ws.root)).toEqual(before);
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("first write\n");
    expect(readdirSync(join(ws.root, ".glassbox", "tmp"))).toHaveLength(1);
    // The killed write's change is in the journal, neither done nor failed: the file may hold what was there before it.
    const { plan, entry } = applyUndo(new Workspace(ws.root), RUN_ID, { force: false });
    expect(outcomeLines(plan, entry!)).toEqual(["restored a.txt"]);
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("original\n");
    expect(readdirSync(join(ws.root, ".glassbox", "tmp"))).toEqual([]);
  });

  test("a temporary beside its file (another filesystem) is named first, and the next start removes it", () => {
    const root = new Workspace(makeWorkspace().root).root;
    mkdirSync(join(root, "sub"));
    const killed = Bun.spawnSync([process.execPath, SCENES, "killed-beside", root], { stdout: "pipe" });
    const { temporary } = JSON.parse(killed.stdout.toString().trim());
    expect(temporary).toMatch(/^sub\/\.b\.txt\.glassbox-\d+\.tmp$/);
    expect(existsSync(join(root, temporary))).toBe(true);
    const note = readdirSync(join(root, ".glassbox", "tmp"));
    expect(note).toEqual([expect.stringMatching(/^\d+-1\.beside$/)]);

    expect(removeKilledWriteLeftovers(root)).toEqual([temporary, `.glassbox/tmp/${note[0]}`]);
    expect(filesIn(root).filter((path) => path.startsWith("sub/"))).toEqual([]);
  });

  test("the leftovers of a glassbox still running are left alone, and a note naming a person's file removes nothing", () => {
    const root = new Workspace(makeWorkspace().root).root;
    mkdirSync(join(root, ".glassbox", "tmp"), { recursive: true });
    writeFileSync(join(root, ".glassbox", "tmp", `${process.pid}-1.tmp`), "mine, being written");
    writeFileSync(join(root, "README.md"), "the person's\n");
    const gone = Bun.spawnSync([process.execPath, "-e", "0"]).pid;
    writeFileSync(join(root, ".glassbox", "tmp", `${gone}-3.beside`), "README.md");
    expect(removeKilledWriteLeftovers(root)).toEqual([`.glassbox/tmp/${gone}-3.beside`]);
    expect(readFileSync(join(root, "README.md"), "utf8")).toBe("the person's\n");
    expect(readdirSync(join(root, ".glassbox", "tmp"))).toEqual([`${process.pid}-1.tmp`]);
  });

  test("the overlay or snapshot folders of a command whose glassbox is gone are removed, a kernel's folder without rights included; a live one's stay", () => {
    const root = new Workspace(makeWorkspace().root).root;
    const tmp = join(root, ".glassbox", "tmp");
    const gone = Bun.spawnSync([process.execPath, "-e", "0"]).pid;
    for (const name of [`${gone}-command-1/work/work`, `${gone}-snapshot-2/src`, `${process.pid}-command-3/upper`]) mkdirSync(join(tmp, name), { recursive: true });
    chmodSync(join(tmp, `${gone}-command-1`, "work", "work"), 0);
    expect(removeKilledWriteLeftovers(root).sort()).toEqual([`.glassbox/tmp/${gone}-command-1`, `.glassbox/tmp/${gone}-snapshot-2`]);
    expect(readdirSync(tmp)).toEqual([`${process.pid}-command-3`]);
  });
});

describe.skipIf(!CAN_MOUNT)("a full disk (a real one: a small tmpfs)", () => {
  test("applying a command's changes: the copy for undo does not fit, so that change and the rest are not made, and the result says so", () => {
    const disk = join(tempFolder("full-disk"), "disk");
    const { seen } = inOwnMounts(tmpfs(disk, "256k"), "apply-full-disk", disk);
    expect(seen.said).toBe(
      "Workspace files it changed (in the undo journal: glassbox undo restores them): none. Stopped: no space left on device, so the rest of what it changed was dropped and the workspace holds only the changes named; tell the user the disk is full.",
    );
    expect(seen.unchanged).toBe(true);
    expect(seen.files).toEqual(["a.txt", "b.txt"]);
    expect(seen.undo).toEqual([]);
  });

  const cases = [
    ["copy", "while the copy for undo is saved", "notes.txt"],
    ["temp", "while the new content is written", "notes.txt"],
    ["folder", "while a new file is written in folders made for it", "new/deeper/notes.txt"],
  ] as const;
  for (const [where, when, path] of cases) {
    test(`${when}: the result names the disk and the file, which is unchanged; no partial copy, temporary or folder is left`, () => {
      const disk = join(tempFolder("full-disk"), "disk");
      const { seen } = inOwnMounts(tmpfs(disk, "256k"), "tool-full-disk", disk, where);
      expect(seen.decision).toBe("error");
      expect(seen.content).toBe(`Failed: no space left on device, so \`${path}\` (argument \`path\`) was not written and is unchanged; tell the user the disk is full.`);
      expect(seen.unchanged).toBe(true);
      expect(seen.files).toEqual(["notes.txt"]);
      expect(seen.top).toEqual([".glassbox", "notes.txt"]);
      expect(seen.undo.filter((name: string) => name.endsWith(".before"))).toEqual([]);
      expect(seen.journal).toEqual(where === "copy" ? [] : ["change", "change_failed"]);
      expect(seen.temporaries).toEqual([]);
    });
  }
});

describe("what a write depends on is on the disk before the file changes", () => {
  test("the copy for undo, the journal's line and the new content are each synced, in that order, before the rename", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "a.txt"), "before\n");
    const g = gate(ws.root, { allow: ["write_file"] });
    g.checkpoint.journal = new ChangeJournal(new Workspace(ws.root).root, RUN_ID);
    const order: string[] = [];
    const fsyncSync = fs.fsyncSync;
    const renameSync = fs.renameSync;
    const synced = spyOn(fs, "fsyncSync").mockImplementation((fd) => (order.push(`sync ${fs.readlinkSync(`/proc/self/fd/${fd}`).replace(/^.*\.glassbox\//, "")}`), fsyncSync(fd)));
    const renamed = spyOn(fs, "renameSync").mockImplementation((from, to) => (order.push(`rename to ${String(to).split("/").at(-1)}`), renameSync(from, to)));
    try {
      expect((await g.call("write_file", { path: "a.txt", content: "after\n" })).decision).toBe("allowed");
    } finally {
      synced.mockRestore();
      renamed.mockRestore();
    }
    const folder = `undo/${RUN_ID}`;
    expect(order).toEqual([`sync ${folder}/1.before`, `sync ${folder}/journal.jsonl`, `sync ${folder}`, expect.stringMatching(/^sync tmp\/\d+-\d+\.tmp$/), "rename to a.txt"]);
  });
});

describe.skipIf(!CAN_MOUNT)("a filesystem mounted inside the workspace", () => {
  const across = (mount: (root: string) => string) => {
    const root = new Workspace(makeWorkspace().root).root;
    mkdirSync(join(root, "mnt"));
    return inOwnMounts(mount(root), "write-across-mount", root).seen;
  };

  test("another device: the temporary goes beside the file (a rename cannot cross devices), and nothing is left", () => {
    const seen = across((root) => tmpfs(join(root, "mnt"), "1m"));
    expect(seen.planned).toMatch(/^mnt\/\.x\.txt\.glassbox-\d+\.tmp$/);
    expect(seen.decision).toBe("allowed");
    expect(seen.written).toBe("across\n");
    expect(seen.files.filter((path: string) => path.startsWith("mnt/"))).toEqual(["mnt/x.txt"]);
    expect(seen.temporaries).toEqual([]);
  });

  test("the same device through a bind mount: the refused rename is written again beside the file", () => {
    const elsewhere = tempFolder("bound");
    const seen = across((root) => `mount --bind '${elsewhere}' '${join(root, "mnt")}'`);
    expect(seen.planned).toMatch(/^\.glassbox\/tmp\//);
    expect(seen.decision).toBe("allowed");
    expect(seen.written).toBe("across\n");
    expect(seen.files.filter((path: string) => path.startsWith("mnt/"))).toEqual(["mnt/x.txt"]);
    expect(seen.temporaries).toEqual([]);
  });
});

/**
 * Bytes read from a FIFO (opened non-blocking: a writer that never comes must fail the test, not
 * hang it) as soon as its writer sends some; 0 when the writer ended first or 10 s passed.
 */
async function readSome(reader: number, writer: { exitCode: number | null }): Promise<number> {
  for (let waited = 0; waited < 10_000 && writer.exitCode === null; waited += 5) {
    try {
      const read = readSync(reader, Buffer.alloc(4096));
      if (read > 0) return read;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
    }
    await Bun.sleep(5);
  }
  return 0;
}

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string | null> {
  let text = "";
  for await (const chunk of stream) {
    text += Buffer.from(chunk).toString();
    if (text.includes("\n")) return text.slice(0, text.indexOf("\n"));
  }
  return null;
}
