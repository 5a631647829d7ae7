import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DiskFullWatch, isDiskFull, writeSoftly } from "../../src/platform/disk-full.ts";
import { tempFolder } from "../helpers/workspace.ts";

/** /dev/full: every write to it fails with ENOSPC, as on a disk with no room left. */
const toFullDisk = () => writeFileSync("/dev/full", "a line\n");

describe("writeSoftly", () => {
  test("a full disk is not thrown: the write is reported as not done", () => {
    expect(writeSoftly("/dev/full", toFullDisk)).toBe(false);
    expect(writeSoftly("/dev/null", () => writeFileSync("/dev/null", "x"))).toBe(true);
  });

  test("any other failure is thrown as before", () => {
    const folder = tempFolder("soft");
    expect(() => writeSoftly(folder, () => writeFileSync(folder, "x"))).toThrow(expect.objectContaining({ code: "EISDIR" }));
  });

  test("ENOSPC and EDQUOT are a full disk; nothing else is", () => {
    expect([{ code: "ENOSPC" }, { code: "EDQUOT" }, { code: "EIO" }, null].map(isDiskFull)).toEqual([true, true, false, false]);
  });
});

describe("DiskFullWatch", () => {
  test("the first full disk under its workspace ends the run's signal and says where, workspace-relative", () => {
    const root = tempFolder("watched");
    mkdirSync(join(root, ".glassbox"));
    const watch = new DiskFullWatch(root);
    try {
      writeSoftly("/dev/full", toFullDisk);
      writeSoftly(`${root}-other/.glassbox/x`, toFullDisk);
      expect(watch.signal.aborted).toBe(false);
      writeSoftly(join(root, ".glassbox", "sessions", "s.jsonl"), toFullDisk);
      writeSoftly(join(root, ".glassbox", "runs", "r.jsonl"), toFullDisk);
      expect(watch.signal.aborted).toBe(true);
      expect(watch.failedAt).toBe(".glassbox/sessions/s.jsonl");
      expect(watch.reason()).toBe("no space left on device writing .glassbox/sessions/s.jsonl, so glassbox stopped the run rather than lose its record; free some space, then continue the session");
    } finally {
      watch.close();
    }
  });

  test("once closed, it hears nothing more", () => {
    const root = tempFolder("closed");
    const watch = new DiskFullWatch(root);
    watch.close();
    writeSoftly(join(root, "x"), toFullDisk);
    expect(watch.signal.aborted).toBe(false);
  });
});
