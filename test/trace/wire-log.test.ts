import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync as link } from "node:fs";
import { join } from "node:path";
import { WireLog, wireLogPath } from "../../src/trace/wire-log.ts";
import { makeWorkspace } from "../helpers/workspace.ts";

describe("the wire log on a full disk", () => {
  test("a request it cannot log is not sent (the call fails, naming the disk); a response it cannot log is left out", () => {
    const ws = makeWorkspace();
    const path = wireLogPath(ws.root);
    mkdirSync(join(path, ".."), { recursive: true });
    // /dev/full: every write to it fails with ENOSPC, as on a disk with no room left.
    link("/dev/full", path);
    const wire = new WireLog(path);
    expect(() => wire.request("http://127.0.0.1:8080/v1/chat/completions", "{}")).toThrow("no space left on device for the wire log (.glassbox/wire.jsonl), so the request was not sent");
    expect(() => wire.response({ seq: 1, url: "http://127.0.0.1:8080/v1/chat/completions", status: 200, ok: true })).not.toThrow();
  });
});
