import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseCli } from "../../src/cli/args.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import type { Message } from "../../src/protocol/messages.ts";
import type { ModelClient, ModelDelta } from "../../src/protocol/model.ts";
import { openSession, type Session } from "../../src/session/session.ts";
import { startRun } from "../../src/session/start-run.ts";
import { UNANSWERED, answerEveryCall, chooseSession, listSessions, readSession, sessionsFolder, summarize, type SavedSession } from "../../src/session/store.ts";
import { usageError } from "../helpers/usage-error.ts";
import { scriptFile } from "../helpers/cli.ts";
import { FakeClock, WatchedModel, call } from "../helpers/run.ts";
import { makeWorkspace } from "../helpers/workspace.ts";
import type { ScriptedReply } from "../../src/model/scripted.ts";

/** A session on a fresh toy workspace whose model is a WatchedModel playing `replies`. */
function sessionWith(root: string, replies: ScriptedReply[], clock = new FakeClock()): { session: Session; model: WatchedModel } {
  const session = openSession(parseCli(["run", "--workspace", root, "--model", scriptFile([]), "--allow", "write_file"]), undefined, clock);
  const model = new WatchedModel(replies);
  session.model = model;
  return { session, model };
}

async function play(session: Session, task: string, saved: SavedSession, onEvent?: (event: AgentEvent) => void): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of startRun(session, task, undefined, saved).events) {
    onEvent?.(event);
    events.push(event);
  }
  return events;
}

const fileLines = (saved: SavedSession) => readFileSync(saved.path, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));


describe("saving a session as it goes", () => {
  test("every record message and every event is in the file before the run's consumer sees the event", async () => {
    const ws = makeWorkspace();
    const { session } = sessionWith(ws.root, [call("read_file", { path: "README.md" }), { content: "It compares versions." }]);
    const saved = chooseSession(ws.root, {}, () => session.clock.now());
    expect(existsSync(saved.path)).toBe(false); // nothing is written before the first run
    const seen: string[] = [];
    await play(session, "what is this?", saved, (event) => {
      if (event.kind === "model_delta") return;
      const lines = fileLines(saved);
      const last = lines.at(-1)!;
      seen.push(event.kind);
      expect(last).toMatchObject({ kind: "event", event: { kind: event.kind } });
      // The record up to now is saved too: the messages in the file are a prefix of the record.
      const messages = lines.filter((line) => line.kind === "message").map((line) => line.message);
      expect(messages).toEqual(saved.record.slice(0, messages.length));
      if (event.kind === "tool_call") expect(messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: event.id });
    });
    expect(seen[0]).toBe("run_start");
    expect(seen.at(-1)).toBe("stop");

    const lines = fileLines(saved);
    expect(lines[0]).toMatchObject({ kind: "session", version: 1, session_id: saved.id, workspace: ws.root });
    const loaded = readSession(saved.path, saved.id);
    expect(loaded.skipped).toEqual([]);
    expect(loaded.record).toEqual(saved.record);
    expect(loaded.record.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(summarize(loaded)).toMatchObject({ id: saved.id, runs: 1, firstTask: "what is this?", lastStatus: "completed", model: "scripted:test" });
  });

  test("streamed text is joined into one line per reply, written at the next event or at flush()", async () => {
    const ws = makeWorkspace();
    const { session } = sessionWith(ws.root, []);
    const words = ["The ", "answer ", "is ", "FORTY-TWO."];
    const streaming: ModelClient = {
      name: "streaming",
      async *reply(): AsyncIterable<ModelDelta> {
        for (const text of words) yield { type: "text", text };
        yield { type: "done", finish_reason: "stop" };
      },
    };
    session.model = streaming;
    const saved = chooseSession(ws.root, {}, () => session.clock.now());
    let flushedAt = -1;
    await play(session, "say it", saved, (event) => {
      if (event.kind !== "model_delta" || event.tokens !== 2) return;
      // The second piece is pending; flush() (the TUI calls it before every frame) writes what arrived so far.
      saved.flush();
      flushedAt = fileLines(saved).length;
      expect(fileLines(saved).at(-1)).toMatchObject({ event: { kind: "model_delta", text: "The answer ", tokens: 2 } });
    });
    expect(flushedAt).toBeGreaterThan(0);
    const deltas = fileLines(saved).filter((line) => line.event?.kind === "model_delta").map((line) => line.event.text);
    expect(deltas).toEqual(["The answer ", "is FORTY-TWO."]);
    expect(deltas.join("")).toBe(words.join(""));
  });

  test("a continued session's next request carries every earlier turn, and the file grows by appending", async () => {
    const ws = makeWorkspace();
    const clock = new FakeClock();
    const first = sessionWith(ws.root, [call("read_file", { path: "README.md" }), { content: "The answer is FORTY-TWO." }], clock);
    const saved = chooseSession(ws.root, {}, () => clock.now());
    await play(first.session, "what is the answer?", saved);
    const before = readFileSync(saved.path, "utf8");

    clock.advance(60_000);
    const second = sessionWith(ws.root, [{ content: "Doubled: 84." }], clock);
    const again = chooseSession(ws.root, { continue: true }, () => clock.now());
    expect(again.id).toBe(saved.id);
    await play(second.session, "and doubled?", again);

    const sent = second.model.requests[0]!.messages.map((message: Message) => [message.role, message.content.slice(0, 30)]);
    expect(sent.slice(1)).toEqual([
      ["user", "what is the answer?"],
      ["assistant", ""],
      ["tool", "[README.md: lines 1-9 of 9; 0 "],
      ["assistant", "The answer is FORTY-TWO."],
      ["user", "and doubled?"],
    ]);
    expect(readFileSync(again.path, "utf8").startsWith(before)).toBe(true);
    const loaded = readSession(again.path, again.id);
    expect(summarize(loaded)).toMatchObject({ runs: 2, firstTask: "what is the answer?", lastStatus: "completed" });
    expect(loaded.record.at(-1)).toEqual({ role: "assistant", content: "Doubled: 84." });
    expect(readdirSync(sessionsFolder(ws.root))).toEqual([`${saved.id}.jsonl`]);
  });

  test("a continued session's view is the one the last run sent: its compactions are restored from the saved events", async () => {
    const ws = makeWorkspace();
    for (let i = 0; i < 6; i++) writeFileSync(join(ws.root, `log${i}.txt`), `line ${i} of the log\n`.repeat(150));
    const clock = new FakeClock();
    const reads: ScriptedReply[] = [0, 1, 2, 3, 4, 5].map((i) => call("read_file", { path: `log${i}.txt` }));
    const first = sessionWith(ws.root, [...reads, { content: "Six logs, nothing wrong." }], clock);
    first.session.limits = { ...first.session.limits, max_transcript_chars: 16_000 };
    const saved = chooseSession(ws.root, {}, () => clock.now());
    const events = await play(first.session, "read the logs", saved);
    expect(events.some((event) => event.kind === "context_elided")).toBe(true);
    const lastSent = first.model.requests.at(-1)!.messages;

    const second = sessionWith(ws.root, [{ content: "Still nothing." }], clock);
    second.session.limits = first.session.limits;
    const again = chooseSession(ws.root, { continue: true }, () => clock.now());
    expect([...again.context.elided.keys()]).toEqual([...saved.context.elided.keys()]);
    const more = await play(second.session, "anything else?", again);
    // Nothing to compact again: the server's cached prompt is still the start of the next one.
    expect(more.some((event) => event.kind === "context_elided" || event.kind === "context_summarized")).toBe(false);
    expect(second.model.requests[0]!.messages.slice(0, lastSent.length)).toEqual(lastSent);
  });

  test("a continued session gets its plan back from the last todo list", async () => {
    const ws = makeWorkspace();
    const items = [{ text: "read the code", status: "done" as const }, { text: "fix the bug", status: "in_progress" as const }];
    const first = sessionWith(ws.root, [call("update_todo", { items }), { content: "planned" }]);
    await play(first.session, "plan it", chooseSession(ws.root, {}));
    const second = sessionWith(ws.root, []);
    expect(second.session.checkpoint.todo).toEqual([]);
    chooseSession(ws.root, { continue: true }).restorePlan(second.session.checkpoint.todo);
    expect(second.session.checkpoint.todo).toEqual(items);
  });
});

describe("reading a damaged session", () => {
  async function savedSession() {
    const ws = makeWorkspace();
    const { session } = sessionWith(ws.root, [call("read_file", { path: "README.md" }, "c1"), { content: "The answer is FORTY-TWO." }]);
    const saved = chooseSession(ws.root, {}, () => session.clock.now());
    await play(session, "what is the answer?", saved);
    return { ws, saved };
  }

  test("a half-written last line is skipped and named; everything before it opens; the next line starts on a line of its own", async () => {
    const { ws, saved } = await savedSession();
    const whole = readSession(saved.path, saved.id);
    const lineCount = readFileSync(saved.path, "utf8").split("\n").length - 1;
    const half = '{"kind":"message","at":"2026-11-30T12:00:00.000Z","message":{"role":"user","con';
    appendFileSync(saved.path, half);

    const cut = readSession(saved.path, saved.id);
    expect(cut.record).toEqual(whole.record);
    expect(cut.events).toEqual(whole.events);
    expect(cut.skipped).toEqual([`line ${lineCount + 1}: cut off mid-write (${half.length} bytes; glassbox ended while writing it)`]);

    // Continuing appends after the damaged line, never glued to it.
    const { session } = sessionWith(ws.root, [{ content: "Doubled: 84." }]);
    await play(session, "and doubled?", chooseSession(ws.root, { continue: true }));
    const after = readSession(saved.path, saved.id);
    expect(after.skipped).toEqual([`line ${lineCount + 1}: not JSON (damaged)`]);
    expect(after.record.slice(0, whole.record.length)).toEqual(whole.record);
    expect(after.record.slice(whole.record.length)).toEqual([
      { role: "user", content: "and doubled?" },
      { role: "assistant", content: "Doubled: 84." },
    ]);
  });

  test("lines that are not JSON or not session lines are skipped and named; the rest is kept", async () => {
    const { saved } = await savedSession();
    const lines = readFileSync(saved.path, "utf8").split("\n");
    const at = "2026-11-30T12:00:00.000Z";
    lines.splice(
      2,
      0,
      "\u0000\u0000garbage",
      JSON.stringify({ kind: "message", at, message: { role: "wizard", content: "hi" } }),
      JSON.stringify({ kind: "event", at, run_id: "r", event: { kind: "tool_call", tool: "read_file" } }),
      JSON.stringify({ kind: "message", at: "yesterday", message: { role: "user", content: "hi" } }),
    );
    writeFileSync(saved.path, lines.join("\n"));
    const loaded = readSession(saved.path, saved.id);
    expect(loaded.skipped).toHaveLength(4);
    expect(loaded.skipped[0]).toBe("line 3: not JSON (damaged)");
    expect(loaded.skipped[1]).toStartWith("line 4: not a session line (message.role:");
    expect(loaded.skipped[2]).toStartWith("line 5: not a session line (event: a tool_call event without step");
    expect(loaded.skipped[3]).toStartWith("line 6: not a session line (at:");
    expect(loaded.record.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(summarize(loaded)).toMatchObject({ runs: 1, lastStatus: "completed", skipped: 4 });
  });

  test("a reply cut off while it streamed is kept as far as it was written, and the next task follows it", async () => {
    const ws = makeWorkspace();
    const { session } = sessionWith(ws.root, []);
    session.model = {
      name: "streaming",
      async *reply(): AsyncIterable<ModelDelta> {
        for (const text of ["Once ", "upon ", "a ", "time"]) yield { type: "text", text };
        yield { type: "done", finish_reason: "stop" };
      },
    };
    const saved = chooseSession(ws.root, {});
    // glassbox ends after the second piece was drawn (a frame flushed it): nothing else is written.
    for await (const event of startRun(session, "tell a story", undefined, saved).events) {
      if (event.kind === "model_delta" && event.tokens === 2) {
        saved.flush();
        break;
      }
    }
    const loaded = readSession(saved.path, saved.id);
    expect(loaded.record).toEqual([
      { role: "user", content: "tell a story" },
      { role: "assistant", content: "Once upon " },
    ]);
    expect(loaded.cutOff).toBe(1);
    expect(summarize(loaded).lastStatus).toBe("unfinished");

    const next = sessionWith(ws.root, [{ content: "a time, there was a bug." }]);
    await play(next.session, "go on", chooseSession(ws.root, { continue: true }));
    expect(next.model.requests[0]!.messages.slice(1)).toEqual([
      { role: "user", content: "tell a story" },
      { role: "assistant", content: "Once upon " },
      { role: "user", content: "go on" },
    ]);
    expect(readSession(saved.path, saved.id).record.map((message) => message.content)).toEqual(["tell a story", "Once upon ", "go on", "a time, there was a bug."]);
  });

  test("a session cut off while tools ran: each unanswered call is answered 'not run', after its batch; the last run is unfinished", async () => {
    const { saved } = await savedSession();
    // Keep the file up to the assistant's tool call: the crash came before the tool's answer.
    const lines = readFileSync(saved.path, "utf8").split("\n");
    const callLine = lines.findIndex((line) => line.includes('"tool_calls":[{"id":"c1"'));
    writeFileSync(saved.path, lines.slice(0, callLine + 1).join("\n") + "\n");
    const loaded = readSession(saved.path, saved.id);
    expect(loaded.record).toEqual([
      { role: "user", content: "what is the answer?" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "read_file", arguments: { path: "README.md" } }] },
      { role: "tool", tool_call_id: "c1", name: "read_file", content: UNANSWERED },
    ]);
    expect(loaded.unanswered).toBe(1);
    expect(summarize(loaded).lastStatus).toBe("unfinished");
  });
});

describe("answerEveryCall", () => {
  const assistant = (...ids: string[]): Message => ({ role: "assistant", content: "", tool_calls: ids.map((id) => ({ id, name: "read_file", arguments: {} })) });
  const result = (id: string): Message => ({ role: "tool", tool_call_id: id, name: "read_file", content: `result ${id}` });
  const notRun = (id: string): Message => ({ role: "tool", tool_call_id: id, name: "read_file", content: UNANSWERED });

  test.each([
    ["a whole conversation is kept as it is", [{ role: "user", content: "t" }, assistant("a"), result("a"), { role: "assistant", content: "done" }], null, 0, 0],
    ["a batch cut in the middle: the missing answer goes right after the answered one", [assistant("a", "b"), result("a")], [assistant("a", "b"), result("a"), notRun("b")], 1, 0],
    ["an unanswered batch followed by a new task: the answers come before the task", [assistant("a"), { role: "user", content: "next" }], [assistant("a"), notRun("a"), { role: "user", content: "next" }], 1, 0],
    ["a result whose call line was lost is left out", [{ role: "user", content: "t" }, result("x"), { role: "assistant", content: "ok" }], [{ role: "user", content: "t" }, { role: "assistant", content: "ok" }], 0, 1],
  ] as Array<[string, Message[], Message[] | null, number, number]>)("%s", (_name, input, want, unanswered, dropped) => {
    expect(answerEveryCall(input)).toEqual({ record: want ?? input, unanswered, dropped });
  });
});

describe("choosing a session", () => {
  async function twoSessions() {
    const ws = makeWorkspace();
    const clock = new FakeClock();
    const older = chooseSession(ws.root, {}, () => clock.now());
    await play(sessionWith(ws.root, [{ content: "one" }], clock).session, "first task", older);
    clock.advance(1000);
    const newer = chooseSession(ws.root, {}, () => clock.now());
    await play(sessionWith(ws.root, [{ content: "two" }], clock).session, "second task", newer);
    return { ws, clock, older, newer };
  }

  test("--continue takes the most recently used session, not the most recently started", async () => {
    const { ws, clock, older, newer } = await twoSessions();
    expect(chooseSession(ws.root, { continue: true }).id).toBe(newer.id);
    clock.advance(1000);
    await play(sessionWith(ws.root, [{ content: "three" }], clock).session, "back to the first", chooseSession(ws.root, { session: older.id }, () => clock.now()));
    expect(listSessions(ws.root).map((session) => session.id)).toEqual([older.id, newer.id]);
    expect(chooseSession(ws.root, { continue: true }).id).toBe(older.id);
  });

  test("an unknown id is a usage error naming the saved ids and glassbox sessions", async () => {
    const { ws, older, newer } = await twoSessions();
    const error = usageError(() => chooseSession(ws.root, { session: "20990101T000000-deadbeef" }));
    expect(error.message).toContain(`no session "20990101T000000-deadbeef"`);
    expect(error.message).toContain(`saved sessions: ${newer.id}, ${older.id}`);
    expect(error.message).toContain("glassbox sessions");
  });

  test("an id is looked up among the saved sessions, never used as a path", async () => {
    const { ws } = await twoSessions();
    // A well-formed session file outside the sessions folder, reachable by a relative path.
    const outside = join(ws.root, ".glassbox", "elsewhere");
    mkdirSync(outside, { recursive: true });
    const [first] = listSessions(ws.root);
    writeFileSync(join(outside, "planted.jsonl"), readFileSync(first!.path));
    for (const id of ["../elsewhere/planted", "../../.glassbox/elsewhere/planted", `${first!.id}.jsonl`, ""]) {
      expect(usageError(() => chooseSession(ws.root, { session: id })).message).toContain(`no session "${id}"`);
    }
  });

  test("--continue with nothing saved, and --continue with --session, are usage errors", () => {
    const ws = makeWorkspace();
    expect(usageError(() => chooseSession(ws.root, { continue: true })).message).toContain("no saved session in");
    expect(usageError(() => chooseSession(ws.root, { session: "x" })).message).toContain("no saved session in");
    expect(usageError(() => chooseSession(ws.root, { continue: true, session: "x" })).message).toContain("pass one of them");
    expect(existsSync(sessionsFolder(ws.root))).toBe(false);
  });
});
