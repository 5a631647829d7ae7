import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { capForAge, elide, modelView, SUMMARY_REQUEST, summaryRange } from "../../src/core/context.ts";
import { DEFAULT_CONTEXT_POLICY } from "../../src/core/discipline.ts";
import type { EventOf } from "../../src/core/events.ts";
import type { Message } from "../../src/core/messages.ts";
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

describe("stage 1: elision", () => {
  test("the cap halves each time a result's age past the newest four doubles, never below 120", () => {
    const caps = [1, 2, 3, 4, 5, 7, 8, 15, 16, 31, 32, 100].map((age) => capForAge(age, DEFAULT_CONTEXT_POLICY));
    expect(caps).toEqual([2000, 1000, 1000, 500, 500, 500, 250, 250, 125, 125, 120, 120]);
  });

  test("12 results of ~4,000 characters: newest four whole, older ones capped by age, the record unchanged, the total shrinks", () => {
    const record = conversation(12, 4000);
    const snapshot = structuredClone(record);
    const { messages, results } = elide(modelView("system", record), DEFAULT_CONTEXT_POLICY);
    const tools = messages.filter((message) => message.role === "tool").map((message) => message.content.length);
    // Oldest first: ages 8..1 for the eight older results, then the newest four whole.
    expect(tools.slice(8)).toEqual([4000, 4000, 4000, 4000]);
    const expectedCaps = [8, 7, 6, 5, 4, 3, 2, 1].map((age) => capForAge(age, DEFAULT_CONTEXT_POLICY));
    tools.slice(0, 8).forEach((length, index) => expect(length).toBeLessThanOrEqual(expectedCaps[index]!));
    expect(results).toBe(8);
    expect(record).toEqual(snapshot);
    // The task and the model's own messages are never cut.
    expect(messages.filter((message) => message.role !== "tool")).toEqual(modelView("system", record).filter((message) => message.role !== "tool"));
    const total = (list: Message[]) => list.reduce((sum, message) => sum + message.content.length, 0);
    expect(total(messages)).toBeLessThan(total(modelView("system", record)) / 2);
  });
});

describe("stage 2: the summary's range", () => {
  test("never orphans a tool result: the kept tail starts at an assistant message, the task stays", () => {
    const record = conversation(6, 100);
    const range = summaryRange(record, null, 2)!;
    expect(range.from).toBe(1);
    expect(record[range.upTo]!.role).toBe("assistant");
    const kept = record.slice(range.upTo);
    const ids = new Set(kept.flatMap((message) => (message.role === "assistant" ? (message.tool_calls ?? []).map((c) => c.id) : [])));
    for (const message of kept) if (message.role === "tool") expect(ids.has(message.tool_call_id)).toBe(true);
    const view = modelView("s", record, { upTo: range.upTo, messages: range.upTo - range.from, text: "what I did" });
    expect(view[1]).toEqual(record[0]!);
    expect(view[2]!.content).toContain("what I did");
  });

  test("too short a conversation has nothing to summarize", () => {
    expect(summaryRange(conversation(2, 10), null, 2)).toBeNull();
  });
});

describe("through the loop", () => {
  const big = (i: number) => call("read_file", { path: `big${i}.txt`, max_lines: 500 });
  /** The model answers the summary request with a summary, whenever it comes. */
  const summarizes = (request: { messages: Message[]; tools: unknown[] }) =>
    request.tools.length === 0 && request.messages.at(-1)?.content === SUMMARY_REQUEST ? { content: "SUMMARY: read the big files, nothing found yet." } : null;
  const limits = { max_steps: 20, max_tool_calls: 20, max_transcript_chars: 22_000, max_result_chars: 5_000 };

  function bigFiles(root: string) {
    for (let i = 0; i < 10; i++) writeFileSync(join(root, `big${i}.txt`), `file ${i} `.repeat(1000));
  }

  test("from the soft threshold old tool results are elided in the view, the record kept whole", async () => {
    const ws = makeWorkspace();
    for (let i = 0; i < 8; i++) writeFileSync(join(ws.root, `mid${i}.txt`), `line of file ${i}\n`.repeat(100));
    const replies: ScriptedReply[] = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => call("read_file", { path: `mid${i}.txt` }));
    replies.push({ content: "done" });
    const run = await runScripted(replies, { workspace: ws.root, limits: { max_steps: 10, max_transcript_chars: 16_000, max_result_chars: 2000 } });
    expect(run.stop.status).toBe("completed");
    const elided = eventsOf(run, "context_elided");
    expect(elided.length).toBeGreaterThan(0);
    for (const event of elided) expect(event.chars_after).toBeLessThan(event.chars_before);
    expect(eventsOf(run, "context_summarized")).toHaveLength(0);
    // The last request: the newest four results whole, the oldest cut to its cap.
    const results = run.model.requests.at(-1)!.messages.filter((message) => message.role === "tool").map((message) => message.content);
    const whole = run.calls.map((event) => event.result);
    expect(results.slice(-4)).toEqual(whole.slice(-4));
    expect(results[0]!.length).toBeLessThan(whole[0]!.length);
    expect(results[0]).toContain("characters cut");
  });

  test("from the hard threshold the middle is replaced by a summary the model writes", async () => {
    const ws = makeWorkspace();
    bigFiles(ws.root);
    const replies: ScriptedReply[] = [0, 1, 2, 3, 4, 5, 6, 7].map(big);
    replies.push({ content: "done" });
    const run = await runScripted(replies, { workspace: ws.root, limits, respond: summarizes });
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

  test("the plan survives a summary", async () => {
    const ws = makeWorkspace();
    bigFiles(ws.root);
    const replies: ScriptedReply[] = [call("update_todo", { items: [{ text: "find the bug", status: "in_progress" }] }), ...[0, 1, 2, 3, 4, 5].map(big), { content: "done" }];
    const run = await runScripted(replies, { workspace: ws.root, limits, respond: summarizes });
    expect(eventsOf(run, "context_summarized").length).toBeGreaterThan(0);
    const last = run.model.requests.at(-1)!.messages.map((message) => message.content).join("\n");
    expect(last).toContain("[in_progress] find the bug");
    expect(last).toContain("SUMMARY: read the big files");
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
