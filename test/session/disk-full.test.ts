/**
 * The run's own records on a full disk, in process: `/dev/full` (every write to it fails with
 * ENOSPC, a real full disk for a single write) stands where the session file goes. The whole
 * run on a filling tmpfs is test/cli/disk-full.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseCli } from "../../src/cli/args.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { openSession } from "../../src/session/session.ts";
import { startRun } from "../../src/session/start-run.ts";
import { SavedSession, sessionsFolder } from "../../src/session/store.ts";
import { writeSoftly } from "../../src/platform/disk-full.ts";
import { appendLine } from "../../src/platform/append-line.ts";
import { scriptFile } from "../helpers/cli.ts";
import { call } from "../helpers/run.ts";
import { makeWorkspace } from "../helpers/workspace.ts";

function sessionOf(root: string, replies = [call("write_file", { path: "notes.md", content: "x\n" }), { content: "done" }]) {
  return openSession(parseCli(["run", "--workspace", root, "--model", scriptFile(replies), "--allow", "write_file", "go"]));
}

async function play(run: { events: AsyncGenerator<AgentEvent> }): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of run.events) events.push(event);
  return events;
}

describe("a session file on a full disk", () => {
  test("the run is not crashed: it stops as disk_full, naming the file, before any tool runs; the event log keeps whole lines to the stop", async () => {
    const ws = makeWorkspace();
    const session = sessionOf(ws.root);
    mkdirSync(sessionsFolder(session.workspace.root), { recursive: true });
    const path = join(sessionsFolder(session.workspace.root), "full.jsonl");
    symlinkSync("/dev/full", path);
    const run = startRun(session, "go", undefined, new SavedSession("full", path, session.workspace.root, Date.now));
    const events = await play(run);
    const stop = events.at(-1)!;
    expect(stop).toMatchObject({ kind: "stop", status: "disk_full" });
    expect(stop.kind === "stop" && stop.reason).toStartWith("no space left on device writing .glassbox/sessions/full.jsonl, so glassbox stopped the run");
    expect(existsSync(join(ws.root, "notes.md"))).toBe(false);
    const logged = readFileSync(run.logPath, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(logged.at(-1)).toEqual(JSON.parse(JSON.stringify(stop)));
  });

  test("a run whose records all fit ends as it would have, though a full disk elsewhere was met", async () => {
    const ws = makeWorkspace();
    const session = sessionOf(ws.root, [{ content: "done" }]);
    const run = startRun(session, "go");
    // Another workspace's record (here: /dev/full itself) meets a full disk meanwhile.
    expect(writeSoftly("/dev/full", () => appendLine("/dev/full", "{}"))).toBe(false);
    const events = await play(run);
    expect(events.at(-1)).toMatchObject({ kind: "stop", status: "completed" });
  });
});

describe("the saved plan on a full disk", () => {
  test("a todo list that cannot be saved does not crash the run: it stops as disk_full, naming the file", async () => {
    const ws = makeWorkspace();
    const session = sessionOf(ws.root, [call("update_todo", { items: [{ text: "one", status: "pending" }] }), { content: "done" }]);
    const progress = join(session.workspace.root, ".glassbox", "progress.json.tmp");
    mkdirSync(join(progress, ".."), { recursive: true });
    symlinkSync("/dev/full", progress);
    const stop = (await play(startRun(session, "go"))).at(-1)!;
    expect(stop).toMatchObject({ kind: "stop", status: "disk_full" });
    expect(stop.kind === "stop" && stop.reason).toStartWith("no space left on device writing .glassbox/progress.json,");
  });
});

describe("the next start", () => {
  test("removes what a killed write left under .glassbox/tmp/", async () => {
    const ws = makeWorkspace();
    const session = sessionOf(ws.root, [{ content: "done" }]);
    const gone = Bun.spawnSync([process.execPath, "-e", "0"]).pid;
    const leftover = join(session.workspace.root, ".glassbox", "tmp", `${gone}-1.tmp`);
    mkdirSync(join(leftover, ".."), { recursive: true });
    writeFileSync(leftover, "half of a file");
    await play(startRun(session, "go"));
    expect(existsSync(leftover)).toBe(false);
  });
});
