import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { DiskFullWatch } from "../../src/platform/disk-full.ts";
import { join } from "node:path";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { EventLog, eventLogPath, newRunId } from "../../src/trace/event-log.ts";
import { makeWorkspace, tempFolder } from "../helpers/workspace.ts";
import { call, runScripted } from "../helpers/run.ts";

const lines = (path: string) => readFileSync(path, "utf8").split("\n");

describe("eventLogPath", () => {
  test("is <workspace>/.glassbox/runs/<run_id>.jsonl", () => {
    expect(eventLogPath("/w/s", "20260101T000000-abcd1234")).toBe("/w/s/.glassbox/runs/20260101T000000-abcd1234.jsonl");
  });
});

describe("newRunId", () => {
  test("starts with the UTC time, sorts by time, never collides", () => {
    const early = newRunId(Date.UTC(2026, 0, 2, 3, 4, 5));
    const late = newRunId(Date.UTC(2026, 0, 2, 3, 4, 6));
    expect(early).toMatch(/^20260102T030405-[0-9a-f]{8}$/);
    expect([late, early].sort()).toEqual([early, late]);
    const same = new Set(Array.from({ length: 200 }, () => newRunId(Date.UTC(2026, 0, 1))));
    expect(same.size).toBe(200);
  });
});

describe("EventLog", () => {
  test("creates the folder and writes one parseable JSON line per event, in order, skipping deltas", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([{ content: "", tool_calls: [{ name: "read_file", arguments: { path: "README.md" } }], thinking: "x" }, { content: "multi\nline \"answer\"" }], { workspace: ws.root });
    const path = eventLogPath(ws.root, "test-run");
    expect(existsSync(join(ws.root, ".glassbox"))).toBe(false);
    const log = new EventLog(path);
    for (const event of run.events) log.write(event);
    const written = lines(path);
    expect(written.at(-1)).toBe("");
    const parsed = written.slice(0, -1).map((line) => JSON.parse(line) as AgentEvent);
    const withoutDeltas = run.events.filter((event) => event.kind !== "model_delta");
    expect(run.events.length).toBeGreaterThan(withoutDeltas.length);
    expect(parsed).toEqual(JSON.parse(JSON.stringify(withoutDeltas)));
    expect(parsed.at(-1)!.kind).toBe("stop");
  });

  test("appends: a second log object on the same path keeps what was there", async () => {
    const ws = makeWorkspace();
    const { events } = await runScripted([{ content: "hi" }], { workspace: ws.root });
    const path = join(tempFolder("log"), "deep", "er", "run.jsonl");
    new EventLog(path).write(events[0]!);
    new EventLog(path).write(events.at(-1)!);
    expect(lines(path).slice(0, -1).map((line) => JSON.parse(line).kind)).toEqual(["run_start", "stop"]);
  });

  test("the tools never see the log folder", async () => {
    const ws = makeWorkspace();
    const { events } = await runScripted([{ content: "transcript_chars" }], { workspace: ws.root });
    new EventLog(eventLogPath(ws.root, "seen")).write(events.find((event) => event.kind === "model_request")!);
    const run = await runScripted(
      [call("list_files"), call("read_file", { path: ".glassbox/runs/seen.jsonl" }), call("search_text", { text: "transcript_chars" }), { content: "done" }],
      { workspace: ws.root },
    );
    expect(run.calls.map((event) => event.decision)).toEqual(["allowed", "refused", "allowed"]);
    expect(run.model.requests[1]!.messages.at(-1)!.content).toContain("README.md");
    expect(run.model.requests[1]!.messages.at(-1)!.content).not.toContain(".glassbox");
    expect(run.model.seen()).toContain("No line matches");
  });

  test("on a full disk an event is left out, never thrown, and a run watching the workspace is told where", async () => {
    const ws = makeWorkspace();
    const { events } = await runScripted([{ content: "hi" }], { workspace: ws.root });
    const path = eventLogPath(ws.root, "full");
    mkdirSync(join(path, ".."), { recursive: true });
    // /dev/full: every write to it fails with ENOSPC, as on a disk with no room left.
    symlinkSync("/dev/full", path);
    const watch = new DiskFullWatch(ws.root);
    try {
      expect(new EventLog(path).write(events.at(-1)!)).toBe(false);
      expect(watch.failedAt).toBe(".glassbox/runs/full.jsonl");
      expect(watch.signal.aborted).toBe(true);
    } finally {
      watch.close();
    }
  });
});
