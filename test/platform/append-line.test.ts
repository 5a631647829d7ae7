import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { appendLine } from "../../src/platform/append-line.ts";
import { CAN_MOUNT, inOwnMounts, tmpfs } from "../helpers/own-mount.ts";
import { tempFolder } from "../helpers/workspace.ts";

describe("appendLine", () => {
  test("adds one line with its newline to what is there", () => {
    const path = join(tempFolder("append"), "a.jsonl");
    writeFileSync(path, '{"line":1}\n');
    appendLine(path, '{"line":2}', { sync: true });
    expect(readFileSync(path, "utf8")).toBe('{"line":1}\n{"line":2}\n');
  });

  test.skipIf(!CAN_MOUNT)("on a disk that fills part way through the line (a real one: a small tmpfs), the line is taken back: only whole lines stay", () => {
    const disk = join(tempFolder("append-full"), "disk");
    const { seen } = inOwnMounts(tmpfs(disk, "256k"), "append-full-disk", disk);
    expect(seen).toEqual({ error: "ENOSPC", text: '{"line":1}\n' });
  });
});
