/**
 * A headless run whose own records (session, event log) meet a full disk: glassbox does not
 * crash, keeps whole lines only, stops the run as `disk_full` (exit 1) and says so on stderr. The
 * disk is real: a small tmpfs in a mount namespace of the test's own (test/helpers/own-mount.ts).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempFolder } from "../helpers/workspace.ts";
import { CAN_MOUNT, inOwnMounts, tmpfs } from "../helpers/own-mount.ts";

describe.skipIf(!CAN_MOUNT)("glassbox run on a disk that fills", () => {
  test("no crash: the stop is disk_full naming where, exit 1, stderr says it, and every record keeps whole lines", () => {
    const disk = join(tempFolder("run-full-disk"), "disk");
    const { seen } = inOwnMounts(tmpfs(disk, "256k"), "run-full-disk", disk);
    expect(seen.stderr).not.toContain("    at ");
    expect(seen.code).toBe(1);
    const stop = seen.events.at(-1);
    expect(stop.kind).toBe("stop");
    expect(stop.status).toBe("disk_full");
    expect(stop.reason).toMatch(/^no space left on device writing \.glassbox\/(sessions|runs)\/[^ ]+\.jsonl, so glassbox stopped the run/);
    expect(seen.stderr).toBe(`glassbox: ${stop.reason}\n`);
    expect(seen.logs).toEqual([true]);
    expect(seen.sessions).toEqual([true]);
    // The call the full disk cut off was not run: nothing half written in the workspace.
    expect(seen.files).toEqual(["README.md"]);
    expect(seen.temporaries).toEqual([]);
  });
});
