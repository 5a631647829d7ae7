import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ContextManager, elisionBatch, renderView, restoreContext, summaryNote, summaryRange, emptyContext, type ContextState } from "../../src/core/context.ts";
import { ModelError } from "../../src/protocol/model.ts";
import { DEFAULT_CONTEXT_POLICY } from "../../src/core/discipline.ts";
import type { AgentEvent, EventOf } from "../../src/protocol/events.ts";
import type { Message } from "../../src/protocol/messages.ts";
import type { ModelRequest } from "../../src/protocol/model.ts";
import type { ScriptedReply } from "../../src/model/scripted.ts";
import { call, runScripted } from "../helpers/run.ts";
import { makeWorkspace } from "../helpers/workspace.ts";

const eventsOf = <K extends string>(run: { events: Array<{ kind: string }> }, kind: K) => run.events.filter((event) => event.kind === kind) as any[];

/** A conversation of `n` tool results of `size` characters each, one call per assistant turn. */
function conversation(n: number, size: number): Message[] {
  const record: Message[] = [{ role: "user", content: "the task" }];
  for (let i = 0; i < n; i++) {
    record.push({ role: "assistant", content: `step ${i}`, tool_calls: [{ id: `c${i}`, name: "read_file", arguments: { path: `f${i}` } }] });
    record.push({ role: "tool", tool_call_id: `c${i}`, name: "read_file", content: `result ${i} `.padEnd(size, "x") });
  }
  return record;
}

describe("elision in batches", () => {
  test("the newest results stay whole up to a quarter of the budget; every older whole one is elided", () => {
    const record = conversation(12, 4000);
    // A budget of 40,000 characters: a quarter holds two results of 4,000 (and a third would still fit: 12,000 > 10,000 does not).
    const batch = elisionBatch(renderView("system", record, emptyContext()), new Map(), { ...DEFAULT_CONTEXT_POLICY, whole_share: 0.25 }, 40_000);
    expect(batch).toEqual(["c9", "c8", "c7", "c6", "c5", "c4", "c3", "c2", "c1", "c0"]);
  });

  test("the newest result stays whole however large (at least min_whole of them); already elided and short ones are left as they are", () => {
    const record = conversation(5, 20_000);
    expect(elisionBatch(renderView("", record, emptyContext()), new Map(), DEFAULT_CONTEXT_POLICY, 10_000)).toEqual(["c3", "c2", "c1", "c0"]);
    record.push({ role: "assistant", content: "", tool_calls: [{ id: "short", name: "read_file", arguments: {} }] }, { role: "tool", tool_call_id: "short", name: "read_file", content: "tiny" });
    const elided = new Map([["c0", 400]]);
    const batch = elisionBatch(renderView("", record, { elided, summary: null }), elided, { ...DEFAULT_CONTEXT_POLICY, min_whole: 2 }, 10_000);
    // "short" and c4 are the two kept whole; c0 is elided already.
    expect(batch).toEqual(["c3", "c2", "c1"]);
  });

  test("an elided result keeps its elided form, and the record is never edited", () => {
    const record = conversation(4, 4000);
    const snapshot = structuredClone(record);
    const state: ContextState = { elided: new Map([["c0", 400], ["c1", 400]]), summary: null };
    const view = renderView("system", record, state);
    const tools = view.filter((message) => message.role === "tool").map((message) => message.content.length);
    expect(tools).toEqual([400, 400, 4000, 4000]);
    expect(view.filter((message) => message.role === "tool")[0]!.content).toContain("characters cut");
    // The same record and state give the same view; a longer record only adds at the end.
    expect(renderView("system", record, state)).toEqual(view);
    record.push({ role: "user", content: "more" });
    expect(renderView("system", record, state).slice(0, view.length)).toEqual(view);
    expect(record.slice(0, snapshot.length)).toEqual(snapshot);
  });
});

describe("the window", () => {
  /** A manager over a record holding only the task, with the server's window told as `window`. */
  const manager = (task: string, window: number, replyTokenCap: number, countTokens?: (messages: Message[]) => Promise<number | null>) =>
    new ContextManager({
      systemPrompt: "",
      record: [{ role: "user", content: task }],
      policy: null,
      state: emptyContext(),
      todo: [],
      maxTranscriptChars: 1_000_000,
      replyTokenCap,
      fallbackWindow: null,
      contextSize: async () => window,
      countTokens,
      summarize: async () => "",
    });
  async function next(context: ContextManager): Promise<{ events: AgentEvent[]; error: unknown; estimatedTokens?: number }> {
    const events: AgentEvent[] = [];
    try {
      const generator = context.next([], new AbortController().signal);
      let step = await generator.next();
      for (; !step.done; step = await generator.next()) events.push(step.value);
      return { events, error: null, estimatedTokens: step.value.estimatedTokens };
    } catch (error) {
      return { events, error };
    }
  }

  test("a prompt that, with the reply cap, does not fit the server's window is refused before it is sent", async () => {
    // 14,000 characters: about 3,500 tokens; with a reply cap of 1,024 over 4,096, with 512 under.
    const over = await next(manager("x".repeat(14_000), 4096, 1024));
    expect(over.events).toEqual([{ kind: "model_info", context_size: 4096 }]);
    expect(over.error).toBeInstanceOf(ModelError);
    expect((over.error as ModelError).status).toBe("context_limit");
    expect((over.error as ModelError).message).toContain("context window of 4096 tokens");
    expect((await next(manager("x".repeat(14_000), 4096, 512))).error).toBeNull();
  });

  test("where the server counts the prompt, its count decides and is reported; the estimate would have let it through", async () => {
    // 12,000 characters: 3,000 tokens estimated, which fits 4,096 with 1,024; the server counts 3,700.
    const counted = await next(manager("x".repeat(12_000), 4096, 1024, async () => 3700));
    expect((counted.error as ModelError).status).toBe("context_limit");
    expect((counted.error as ModelError).message).toContain("3700 tokens, counted by the server");
    expect((await next(manager("x".repeat(12_000), 4096, 256, async () => 3700))).estimatedTokens).toBe(3700);
    const estimated = await next(manager("x".repeat(12_000), 4096, 1024));
    expect(estimated.error).toBeNull();
    expect(estimated.estimatedTokens).toBe(3000);
  });

  test("a server that cannot count leaves the estimate, calibrated by the last count it gave", async () => {
    const counts = [3000, null];
    const context = manager("x".repeat(6_000), 100_000, 0, async () => counts.shift() ?? null);
    expect((await next(context)).estimatedTokens).toBe(3000);
    // Two tokens a character now (3,000 of 6,000 characters, not the four characters a token assumed).
    expect((await next(context)).estimatedTokens).toBe(3000);
  });
});

describe("the summary's range", () => {
  test("never orphans a tool result: the kept tail starts at an assistant message, the task stays", () => {
    const record = conversation(6, 100);
    const range = summaryRange(record, null, 2)!;
    expect(range.from).toBe(1);
    expect(record[range.upTo]!.role).toBe("assistant");
    const kept = record.slice(range.upTo);
    const ids = new Set(kept.flatMap((message) => (message.role === "assistant" ? (message.tool_calls ?? []).map((c) => c.id) : [])));
    for (const message of kept) if (message.role === "tool") expect(ids.has(message.tool_call_id)).toBe(true);
    const view = renderView("s", record, { elided: new Map(), summary: { upTo: range.upTo, messages: range.upTo - range.from, note: summaryNote(range.upTo - range.from, "what I did", []) } });
    expect(view[1]).toEqual(record[0]!);
    expect(view[2]!.content).toContain("what I did");
  });

  test("too short a conversation has nothing to summarize", () => {
    expect(summaryRange(conversation(2, 10), null, 2)).toBeNull();
  });
});

describe("a saved session's compactions", () => {
  test("restored from the events in order; events without the recorded decision restore nothing", () => {
    const events = [
      { kind: "context_elided", results: 2, chars_before: 9, chars_after: 1, ids: ["c0", "c1"], cap: 400 },
      { kind: "context_summarized", messages: 6, chars_before: 9, chars_after: 1, up_to: 7, note: "first" },
      { kind: "context_elided", results: 1, chars_before: 9, chars_after: 1 },
      { kind: "context_summarized", messages: 4, chars_before: 9, chars_after: 1, up_to: 11, note: "second" },
      { kind: "context_summarized", messages: 4, chars_before: 9, chars_after: 1, up_to: "x", note: "damaged" },
    ] as unknown as AgentEvent[];
    const state = restoreContext(events);
    expect([...state.elided]).toEqual([["c0", 400], ["c1", 400]]);
    expect(state.summary).toEqual({ upTo: 11, messages: 10, note: "second" });
  });
});

describe("through the loop", () => {
  const big = (i: number) => call("read_file", { path: `big${i}.txt`, max_lines: 500 });
  /** The model answers the summary request with a summary, whenever it comes. */
  const summarizes = (request: ModelRequest) => (request.purpose === "summary" ? { content: "SUMMARY: read the big files, nothing found yet." } : null);
  const limits = { max_steps: 30, max_tool_calls: 30, max_transcript_chars: 22_000, max_result_chars: 5_000 };
  /** One whole result of 5,000 takes 23% of the 22,000: elision alone cannot get under a target of 20%. */
  const lowTarget = { context: { ...DEFAULT_CONTEXT_POLICY, target_ratio: 0.2 } };

  function bigFiles(root: string, n = 10) {
    for (let i = 0; i < n; i++) writeFileSync(join(root, `big${i}.txt`), `file ${i} `.repeat(1000));
  }

  /** The requests of the run's own steps (not summary requests), each with the compactions made just before it. */
  function steps(run: Awaited<ReturnType<typeof runScripted>>): Array<{ messages: Message[]; compacted: boolean }> {
    const requests = run.model.requests.filter((request) => request.purpose !== "summary");
    const compactedBefore: boolean[] = [];
    let compacted = false;
    for (const event of run.events) {
      if (event.kind === "context_elided" || event.kind === "context_summarized") compacted = true;
      if (event.kind === "model_request") compactedBefore.push(compacted), (compacted = false);
    }
    expect(compactedBefore).toHaveLength(requests.length);
    return requests.map((request, index) => ({ messages: request.messages, compacted: compactedBefore[index]! }));
  }

  test("from the soft threshold old results are elided in one batch, the newest kept whole, the record whole", async () => {
    const ws = makeWorkspace();
    for (let i = 0; i < 8; i++) writeFileSync(join(ws.root, `mid${i}.txt`), `line of file ${i}\n`.repeat(100));
    const replies: ScriptedReply[] = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => call("read_file", { path: `mid${i}.txt` }));
    replies.push({ content: "done" });
    const run = await runScripted(replies, { workspace: ws.root, limits: { max_steps: 10, max_transcript_chars: 16_000, max_result_chars: 2000 } });
    expect(run.stop.status).toBe("completed");
    const elided = eventsOf(run, "context_elided");
    expect(elided.length).toBeGreaterThan(0);
    for (const event of elided) expect(event.chars_after).toBeLessThan(event.chars_before);
    // A batch takes the view well under the soft threshold: fewer compactions than steps after the first.
    expect(elided.length).toBeLessThan(3);
    expect(eventsOf(run, "context_summarized")).toHaveLength(0);
    const results = run.model.requests.at(-1)!.messages.filter((message) => message.role === "tool").map((message) => message.content);
    const whole = run.calls.map((event) => event.result);
    expect(results.slice(-2)).toEqual(whole.slice(-2));
    expect(results[0]!.length).toBeLessThanOrEqual(DEFAULT_CONTEXT_POLICY.elided_chars);
    expect(results[0]).toContain("characters cut");
  });

  test("over a long run a request's messages start with the previous request's, unless a compaction came between", async () => {
    const ws = makeWorkspace();
    bigFiles(ws.root, 24);
    const replies: ScriptedReply[] = [call("update_todo", { items: [{ text: "read them all", status: "in_progress" }] })];
    for (let i = 0; i < 24; i++) replies.push(big(i));
    replies.push(call("update_todo", { items: [{ text: "read them all", status: "done" }] }), { content: "done" });
    const run = await runScripted(replies, { workspace: ws.root, limits: { ...limits, max_steps: 40, max_tool_calls: 40, max_transcript_chars: 60_000 },
      // Long elided forms, so that elision alone stops being enough and summaries come too.
      discipline: { context: { ...DEFAULT_CONTEXT_POLICY, elided_chars: 2000 } },
      respond: summarizes,
    });
    expect(run.stop.status).toBe("completed");
    const sent = steps(run);
    let compactions = 0;
    for (let i = 1; i < sent.length; i++) {
      const { messages, compacted } = sent[i]!;
      if (compacted) compactions++;
      else expect(messages.slice(0, sent[i - 1]!.messages.length)).toEqual(sent[i - 1]!.messages);
    }
    // Compactions are batches, many steps apart, and both kinds happened.
    expect(compactions).toBeGreaterThan(1);
    expect(compactions).toBeLessThan(sent.length / 3);
    expect(eventsOf(run, "context_summarized").length).toBeGreaterThan(0);
    // A summary request is the view the server holds plus the request, with the same tools block.
    const summaryRequests = run.model.requests.filter((request) => request.purpose === "summary");
    for (const request of summaryRequests) {
      const before = run.model.requests[run.model.requests.indexOf(request) - 1]!;
      expect(request.tools).toEqual(before.tools);
      expect(request.messages.slice(0, before.messages.length)).toEqual(before.messages);
    }
    // Every result reached the model whole at least once.
    const seen = run.model.seen();
    for (const event of run.calls) expect(seen).toContain(event.result);
  });

  test("from the threshold that elision cannot get under, the middle is replaced by a summary the model writes", async () => {
    const ws = makeWorkspace();
    bigFiles(ws.root);
    const replies: ScriptedReply[] = [0, 1, 2, 3, 4, 5, 6, 7].map(big);
    replies.push({ content: "done" });
    const run = await runScripted(replies, { workspace: ws.root, limits, respond: summarizes, discipline: lowTarget });
    expect(run.stop.status).toBe("completed");
    const summarized = eventsOf(run, "context_summarized");
    expect(summarized.length).toBeGreaterThan(0);
    expect(summarized[0].chars_after).toBeLessThan(summarized[0].chars_before);
    expect(summarized[0].messages).toBeGreaterThanOrEqual(2);
    // After a summary the model sees its summary, and still the task; the record stays whole.
    const last = run.model.requests.at(-1)!.messages;
    expect(last.some((message) => message.content.includes("SUMMARY: read the big files"))).toBe(true);
    expect(last.some((message) => message.content === "test task")).toBe(true);
    expect(run.calls.every((event) => event.decision === "allowed")).toBe(true);
  });

  test("the plan survives a summary, frozen as it was: a later change is appended, the summary's message stays", async () => {
    const ws = makeWorkspace();
    bigFiles(ws.root);
    const replies: ScriptedReply[] = [call("update_todo", { items: [{ text: "find the bug", status: "in_progress" }] }), ...[0, 1, 2, 3, 4, 5].map(big)];
    replies.push(call("update_todo", { items: [{ text: "find the bug", status: "done" }] }), { content: "done" });
    const run = await runScripted(replies, { workspace: ws.root, limits, respond: summarizes, discipline: lowTarget });
    const summarized = eventsOf(run, "context_summarized");
    expect(summarized.length).toBeGreaterThan(0);
    const last = run.model.requests.at(-1)!.messages;
    const note = last.find((message) => message.content.includes("SUMMARY: read the big files"))!;
    expect(note.content).toBe(summarized.at(-1).note);
    expect(note.content).toContain("[in_progress] find the bug");
    expect(last.map((message) => message.content).join("\n")).toContain("[x] find the bug");
  });
});

describe("stall rules", () => {
  test("same call, same result: the warning comes at the second call, after the turn's tool results, and the third stops the run", async () => {
    const ws = makeWorkspace();
    const same = call("read_file", { path: "README.md" });
    const run = await runScripted([same, same, same], { workspace: ws.root });
    const stalls = eventsOf(run, "stall");
    expect(stalls.map((stall) => stall.rule)).toEqual(["same_call"]);
    const at = run.events.indexOf(stalls[0]);
    expect(run.events.slice(0, at).filter((event) => event.kind === "tool_call")).toHaveLength(2);
    expect(run.stop.status).toBe("repeat_limit");
    const third = run.model.requests[2]!.messages;
    const last = third.at(-1)!;
    expect(last.role).toBe("user");
    expect(last.content).toContain("same arguments 2 times in a row");
    expect(third.at(-2)!.role).toBe("tool");
  });

  test("with max_repeat 4 the warning comes one call before the stop", async () => {
    const ws = makeWorkspace();
    const same = call("read_file", { path: "README.md" });
    const run = await runScripted([same, same, same, same, same], { workspace: ws.root, limits: { max_repeat: 4 } });
    const firedAfter = run.events.slice(0, run.events.indexOf(eventsOf(run, "stall")[0])).filter((event) => event.kind === "tool_call").length;
    expect(firedAfter).toBe(4);
    expect(run.stop.status).toBe("repeat_limit");
  });

  test("eight reads without an edit fire once at the eighth, not before", async () => {
    const ws = makeWorkspace();
    const reads = Array.from({ length: 8 }, (_, i) => call("read_file", { path: "README.md", start: i + 1 }));
    const seven = await runScripted([...reads.slice(0, 7), { content: "x" }], { workspace: ws.root });
    expect(eventsOf(seven, "stall")).toHaveLength(0);
    const eight = await runScripted([...reads, { content: "x" }], { workspace: ws.root, limits: { max_steps: 10 } });
    expect(eventsOf(eight, "stall").map((stall) => stall.rule)).toEqual(["no_progress"]);
  });

  test("five successful edits to one file fire once at the fifth", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "n.txt"), "0\n");
    const edits = [0, 1, 2, 3, 4].map((i) => call("edit_file", { path: "n.txt", old: `${i}\n`, new: `${i + 1}\n` }));
    const four = await runScripted([...edits.slice(0, 4), { content: "x" }], { workspace: ws.root, allow: ["edit_file"] });
    expect(eventsOf(four, "stall")).toHaveLength(0);
    const five = await runScripted([call("edit_file", { path: "n.txt", old: "4\n", new: "0\n" }), ...edits, { content: "x" }], { workspace: ws.root, allow: ["edit_file"] });
    expect(eventsOf(five, "stall").map((stall) => stall.rule)).toEqual(["edit_churn"]);
    expect(readFileSync(join(ws.root, "n.txt"), "utf8")).toBe("5\n");
  });
});

describe("the verification gate", () => {
  const checks = { tests: { argv: ["bun", "test"], timeout_seconds: 60, env: [] } };
  const fix = call("edit_file", { path: "src/version.ts", old: 'return text.trim().replace(/^v/, "").split(".");', new: 'return text.trim().replace(/^v/, "").split(".").map(Number);' });
  const finishCall = call("finish", { summary: "fixed" });

  test("finish is refused before the verify check passes after the last edit, and accepted after", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([fix, finishCall, call("run_check", { name: "tests" }), call("finish", { summary: "fixed and tested" })], {
      workspace: ws.root,
      checks,
      allow: ["edit_file"],
      verify: "tests",
    });
    const gates = eventsOf(run, "gate");
    expect(gates.map((gate) => gate.allowed)).toEqual([false, true]);
    const finishes = run.calls.filter((event) => event.tool === "finish");
    expect(finishes.map((event) => event.decision)).toEqual(["refused", "allowed"]);
    expect(finishes[0]!.reason).toContain('run_check with name "tests"');
    expect(finishes[0]!.reason).toContain("against the task");
    expect(run.stop.status).toBe("completed");
    expect(run.stop.answer).toBe("fixed and tested");
  });

  test("a failing check does not open the gate; an edit after a pass closes it again", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("run_check", { name: "tests" }), finishCall, { content: "giving up" }], { workspace: ws.root, checks, verify: "tests" });
    expect(eventsOf(run, "gate").map((gate) => gate.allowed)).toEqual([false]);
    const again = await runScripted([fix, call("run_check", { name: "tests" }), call("edit_file", { path: "README.md", old: "# semver-lite", new: "# semver-lite!" }), finishCall, { content: "stop" }], {
      workspace: ws.root,
      checks,
      allow: ["edit_file"],
      verify: "tests",
    });
    expect(eventsOf(again, "gate").map((gate) => gate.allowed)).toEqual([false]);
  });
});

describe("budget warnings", () => {
  test("at 75% of the deadline the model is told once to wrap up", async () => {
    const ws = makeWorkspace();
    const { FakeClock } = await import("../helpers/run.ts");
    const clock = new FakeClock();
    const run = await runScripted([call("current_time"), call("list_files"), call("read_file", { path: "README.md" }), { content: "done" }], {
      workspace: ws.root,
      clock,
      limits: { deadline_seconds: 90 },
      onRequest: () => clock.advance(25_000),
    });
    const warnings = eventsOf(run, "budget_warning");
    expect(warnings).toEqual([{ kind: "budget_warning", budget: "deadline" }]);
    const told = run.model.requests.flatMap((request) => request.messages).filter((message) => message.content.includes("wrap up now"));
    expect(told.length).toBeGreaterThan(0);
  });

  test("at 75% of the token budget, once, however many turns follow", async () => {
    const ws = makeWorkspace();
    const usage = { prompt_tokens: 300, gen_tokens: 10 };
    const turns = [call("current_time"), call("list_files"), call("read_file", { path: "README.md" }), call("read_file", { path: "NOTES.md" }), call("list_files", { directory: "src" })];
    const run = await runScripted([...turns.map((turn) => ({ ...turn, usage })), { content: "done", usage }], {
      workspace: ws.root,
      limits: { max_tokens: 1500 },
    });
    // 310 tokens a turn: the mark (1,125) is passed at the fourth turn, and the fifth passes it again.
    expect(eventsOf(run, "budget_warning")).toEqual([{ kind: "budget_warning", budget: "tokens" }]);
    expect(run.stop.status).toBe("token_limit");
  });
});

test("update_todo is a todo event with the items", async () => {
  const ws = makeWorkspace();
  const run = await runScripted([call("update_todo", { items: [{ text: "a", status: "done" }, { text: "b", status: "pending" }] }), { content: "ok" }], { workspace: ws.root });
  expect(eventsOf(run, "todo")).toEqual([{ kind: "todo", items: [{ text: "a", status: "done" }, { text: "b", status: "pending" }] }]);
});

describe("a summary the person asked for (/compact)", () => {
  const summarizes = (request: ModelRequest) => (request.purpose === "summary" ? { content: "SUMMARY: read the big files, nothing found yet." } : null);

  test("/compact: the run's first request summarizes the conversation so far, however small; the last turns stay whole", async () => {
    const ws = makeWorkspace();
    const record = conversation(12, 50);
    const run = await runScripted([{ content: "continuing" }], { workspace: ws.root, record, summarizeFirst: true, respond: summarizes }, "go on");
    expect(run.stop.status).toBe("completed");
    const [summary] = eventsOf(run, "context_summarized");
    expect(summary.messages).toBeGreaterThan(0);
    const sent = run.model.requests.filter((request) => request.purpose !== "summary")[0]!.messages;
    expect(sent.some((message) => typeof message.content === "string" && message.content.includes("SUMMARY: read the big files"))).toBe(true);
    expect(sent.at(-1)!.content).toBe("go on");
    // Without it, so small a conversation is sent whole.
    const plain = await runScripted([{ content: "continuing" }], { workspace: ws.root, record: conversation(12, 50), respond: summarizes }, "go on");
    expect(eventsOf(plain, "context_summarized")).toHaveLength(0);
  });
});
