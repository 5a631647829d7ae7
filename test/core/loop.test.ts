import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { DEFAULT_LIMITS } from "../../src/protocol/limits.ts";
import type { EventOf } from "../../src/protocol/events.ts";
import type { ScriptedReply } from "../../src/model/scripted.ts";
import { defaultTools } from "../../src/tools/index.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { CANARY, makeWorkspace } from "../helpers/workspace.ts";
import { FakeClock, call, runScripted } from "../helpers/run.ts";
import { expectWellFormedRun, toolMessagesAfter } from "../helpers/invariants.ts";

/** A model that keeps exploring: a different read in every reply, more replies than any limit. */
const exploring = (count = DEFAULT_LIMITS.max_steps + 10): ScriptedReply[] =>
  Array.from({ length: count }, (_, i) => call("read_file", { path: "README.md", start: i + 1, max_lines: 1 }, `r${i + 1}`));

const decisions = (calls: EventOf<"tool_call">[]) => calls.map((event) => event.decision);

describe("a plain run", () => {
  test("reads a file, sends its text to the model and completes with the model's answer", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("read_file", { path: "README.md" }, "c1"), { content: "It compares versions." }], { workspace: ws.root });
    expectWellFormedRun(run);
    expect(run.stop.status).toBe("completed");
    expect(run.stop.answer).toBe("It compares versions.");
    expect(run.stop).toMatchObject({ steps: 2, tool_calls: 1 });
    expect(run.calls).toHaveLength(1);
    expect(run.calls[0]).toMatchObject({ id: "c1", tool: "read_file", arguments: '{"path":"README.md"}', decision: "allowed", reason: "" });
    const [answer] = toolMessagesAfter(run, 1);
    expect(answer!.tool_call_id).toBe("c1");
    expect(answer!.content).toContain("semver-lite");
    expect(run.calls[0]!.result_chars).toBe(answer!.content.length);
  });

  test("the stream's end is said after its last delta and before the assembled reply, once per reply", async () => {
    const ws = makeWorkspace();
    const written = 'Reading it.\n<tool_call>{"name": "read_file", "arguments": {"path": "README.md"}}</tool_call>';
    const run = await runScripted([{ content: written }, { content: "Done.", finish_reason: "stop" }], { workspace: ws.root, textCalls: true });
    expectWellFormedRun(run);
    const kinds = run.events.map((event) => event.kind).filter((kind) => kind.startsWith("model_") || kind === "tool_call");
    expect(kinds).toEqual(["model_request", "model_delta", "model_done", "model_reply", "tool_call", "model_request", "model_delta", "model_done", "model_reply"]);
    const done = run.events.filter((event): event is EventOf<"model_done"> => event.kind === "model_done");
    expect(done).toEqual([
      { kind: "model_done", step: 1, finish_reason: "stop" },
      { kind: "model_done", step: 2, finish_reason: "stop" },
    ]);
    expect(run.calls[0]).toMatchObject({ tool: "read_file", from_text: true });
  });

  test("a stream cut off by an error has no end to say: the run stops without model_done", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([{ error: "the connection dropped" }], { workspace: ws.root });
    expect(run.stop.status).toBe("model_error");
    expect(run.events.some((event) => event.kind === "model_done")).toBe(false);
  });

  test("run_start comes first and carries the resolved limits and the offered tools", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([{ content: "hi" }], { workspace: ws.root, limits: { max_steps: 3 } }, "say hi");
    const start = run.events[0] as EventOf<"run_start">;
    expect(start.kind).toBe("run_start");
    expect(start.limits).toEqual({ ...DEFAULT_LIMITS, max_steps: 3 });
    expect(start.task).toBe("say hi");
    expect(start.tools).toContain("read_file");
    expect(start.tools).not.toContain("run_check");
    expect(run.stop).toMatchObject({ status: "completed", steps: 1, tool_calls: 0, answer: "hi" });
  });

  test("an allowed finish completes the run with its summary as the answer", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("finish", { summary: "All done." }), { content: "never asked" }], { workspace: ws.root });
    expectWellFormedRun(run);
    expect(run.stop).toMatchObject({ status: "completed", answer: "All done.", steps: 1, tool_calls: 1 });
    expect(run.model.requests).toHaveLength(1);
  });

  test("calls after a finish in the same reply are answered 'stopped' and do not run", async () => {
    const ws = makeWorkspace();
    const run = await runScripted(
      [{ content: "", tool_calls: [{ id: "f", name: "finish", arguments: { summary: "done" } }, { id: "w", name: "write_file", arguments: { path: "late.txt", content: "x" } }] }],
      { workspace: ws.root, allow: ["write_file"] },
    );
    expectWellFormedRun(run);
    expect(run.stop.status).toBe("completed");
    expect(decisions(run.calls)).toEqual(["allowed", "stopped"]);
    expect(() => readFileSync(join(ws.root, "late.txt"))).toThrow();
  });
});

/** The default deadline, in the fake clock's milliseconds. */
const DEADLINE_MS = DEFAULT_LIMITS.deadline_seconds * 1000;

describe("limits", () => {
  test("a model that keeps exploring stops at the default max_steps", async () => {
    const ws = makeWorkspace();
    const steps = DEFAULT_LIMITS.max_steps;
    const run = await runScripted(exploring(), { workspace: ws.root });
    expectWellFormedRun(run);
    expect(run.stop.status).toBe("step_limit");
    expect(run.stop.steps).toBe(steps);
    expect(run.stop.tool_calls).toBe(steps);
    expect(run.model.requests).toHaveLength(steps);
    expect(decisions(run.calls)).toEqual(Array(steps).fill("allowed"));
  });

  test("max_steps can be lowered", async () => {
    const ws = makeWorkspace();
    const run = await runScripted(exploring(), { workspace: ws.root, limits: { max_steps: 3 } });
    expect(run.stop).toMatchObject({ status: "step_limit", steps: 3 });
    expect(run.model.requests).toHaveLength(3);
  });

  test("the same call ten times stops at the third: repeat_limit, tool_calls 3", async () => {
    const ws = makeWorkspace();
    const run = await runScripted(Array(10).fill(call("read_file", { path: "README.md" })), { workspace: ws.root });
    expectWellFormedRun(run);
    expect(run.stop.status).toBe("repeat_limit");
    expect(run.stop.tool_calls).toBe(3);
    expect(run.stop.steps).toBe(3);
    expect(decisions(run.calls)).toEqual(["allowed", "allowed", "stopped"]);
    expect(run.calls[2]!.reason).toContain("same arguments");
  });

  test("max_repeat 3 lets the same call run three times", async () => {
    const ws = makeWorkspace();
    const run = await runScripted(Array(10).fill(call("read_file", { path: "README.md" })), { workspace: ws.root, limits: { max_repeat: 3 } });
    expect(run.stop).toMatchObject({ status: "repeat_limit", tool_calls: 4 });
    expect(decisions(run.calls)).toEqual(["allowed", "allowed", "allowed", "stopped"]);
  });

  test("the repeat key sorts argument keys: {a,b} and {b,a} are the same call", async () => {
    const ws = makeWorkspace();
    const run = await runScripted(
      [call("probe", { a: 1, b: 2 }), call("probe", { b: 2, a: 1 }), call("probe", { a: 1, b: 2 }), { content: "unreachable" }],
      { workspace: ws.root },
    );
    expectWellFormedRun(run);
    expect(run.stop.status).toBe("repeat_limit");
    expect(decisions(run.calls)).toEqual(["refused", "refused", "stopped"]);
  });

  test("the repeat key treats a JSON string and the same object as one call, at any depth", async () => {
    const ws = makeWorkspace();
    const run = await runScripted(
      [
        call("read_file", { path: "README.md", max_lines: 5 }),
        call("read_file", '{"max_lines": 5, "path": "README.md"}'),
        call("read_file", { max_lines: 5, path: "README.md" }),
        { content: "unreachable" },
      ],
      { workspace: ws.root },
    );
    expect(run.stop.status).toBe("repeat_limit");
    expect(decisions(run.calls)).toEqual(["allowed", "allowed", "stopped"]);

    const nested = await runScripted(
      [call("probe", { x: { b: 1, a: [{ d: 1, c: 2 }] } }), call("probe", JSON.stringify({ x: { a: [{ c: 2, d: 1 }], b: 1 } })), call("probe", { x: { a: [{ c: 2, d: 1 }], b: 1 } })],
      { workspace: ws.root },
    );
    expect(nested.stop.status).toBe("repeat_limit");
  });

  test("different arguments, or the same arguments to another tool, are not repeats", async () => {
    const ws = makeWorkspace();
    const run = await runScripted(
      [
        call("read_file", { path: "README.md" }),
        call("read_file", { path: "README.md" }),
        call("read_file", { path: "NOTES.md" }),
        call("read_file", { path: "NOTES.md" }),
        call("probe", { path: "README.md" }),
        call("probe", { path: "README.md" }),
        call("read_file", { path: "README.md", start: 2 }),
        { content: "done" },
      ],
      { workspace: ws.root },
    );
    expectWellFormedRun(run);
    expect(run.stop).toMatchObject({ status: "completed", tool_calls: 7, steps: 8 });
  });

  test("one call over max_calls_per_reply in a reply: all refused, each answered once, and the run goes on", async () => {
    const ws = makeWorkspace();
    const before = readFileSync(join(ws.root, "README.md"), "utf8");
    let asked = 0;
    const count = DEFAULT_LIMITS.max_calls_per_reply + 1;
    const fillers = Array.from({ length: count - 5 }, (_, i) => ({ id: `c${i + 6}`, name: "current_time", arguments: {} }));
    const batch: ScriptedReply = {
      content: "",
      tool_calls: [
        { id: "c1", name: "read_file", arguments: { path: "README.md" } },
        { id: "c2", name: "list_files", arguments: {} },
        { id: "c3", name: "write_file", arguments: { path: "README.md", content: "overwritten" } },
        { id: "c4", name: "current_time", arguments: {} },
        ...fillers,
        { id: "c5", name: "finish", arguments: { summary: "too early" } },
      ],
    };
    const run = await runScripted([batch, { content: "done" }], {
      workspace: ws.root,
      approver: async () => (asked++, "yes"),
    });
    expectWellFormedRun(run);
    expect(run.stop).toMatchObject({ status: "completed", answer: "done", steps: 2, tool_calls: count });
    expect(decisions(run.calls)).toEqual(Array(count).fill("refused"));
    for (const event of run.calls) expect(event.reason).toContain(`at most ${DEFAULT_LIMITS.max_calls_per_reply}`);
    const answers = toolMessagesAfter(run, 1);
    expect(answers.map((message) => message.tool_call_id)).toEqual(batch.tool_calls!.map((item) => item.id!));
    for (const message of answers) expect(message.content).toStartWith("Refused:");
    expect(asked).toBe(0);
    expect(readFileSync(join(ws.root, "README.md"), "utf8")).toBe(before);
  });

  test("exactly max_calls_per_reply calls in one reply all run", async () => {
    const ws = makeWorkspace();
    const count = DEFAULT_LIMITS.max_calls_per_reply;
    const full: ScriptedReply = {
      content: "",
      tool_calls: Array.from({ length: count }, (_, i) => ({ id: `c${i}`, name: "read_file", arguments: { path: "README.md", start: i + 1, max_lines: 1 } })),
    };
    const run = await runScripted([full, { content: "done" }], { workspace: ws.root });
    expectWellFormedRun(run);
    expect(decisions(run.calls)).toEqual(Array(count).fill("allowed"));
    expect(run.stop).toMatchObject({ status: "completed", tool_calls: count });
  });

  test("max_tool_calls=5 stops at the sixth call: call_limit, tool_calls 5", async () => {
    const ws = makeWorkspace();
    const run = await runScripted(exploring(), { workspace: ws.root, limits: { max_tool_calls: 5 } });
    expectWellFormedRun(run);
    expect(run.stop.status).toBe("call_limit");
    expect(run.stop.tool_calls).toBe(5);
    expect(run.stop.steps).toBe(6);
    expect(decisions(run.calls)).toEqual([...Array(5).fill("allowed"), "stopped"]);
  });

  test("the default call budget holds across replies", async () => {
    const ws = makeWorkspace();
    const budget = DEFAULT_LIMITS.max_tool_calls;
    const perReply = 4;
    const fullReplies = Math.floor(budget / perReply);
    const batches: ScriptedReply[] = Array.from({ length: fullReplies + 2 }, (_, r) => ({
      content: "",
      tool_calls: Array.from({ length: perReply }, (_, c) => ({ id: `r${r}c${c}`, name: "read_file", arguments: { path: "README.md", start: r * perReply + c + 1 } })),
    }));
    const run = await runScripted(batches, { workspace: ws.root });
    expectWellFormedRun(run);
    expect(budget % perReply).toBe(0);
    expect(run.stop).toMatchObject({ status: "call_limit", tool_calls: budget, steps: fullReplies + 1 });
    expect(run.calls.filter((event) => event.decision === "allowed")).toHaveLength(budget);
  });

  test("refused calls count toward the call budget", async () => {
    const ws = makeWorkspace();
    const run = await runScripted(
      [call("no_such_tool"), call("read_file", { path: "../outside.txt" }), call("read_file", {}), call("read_file", { path: "README.md" }), { content: "x" }],
      { workspace: ws.root, limits: { max_tool_calls: 3 } },
    );
    expectWellFormedRun(run);
    expect(run.stop).toMatchObject({ status: "call_limit", tool_calls: 3 });
    expect(decisions(run.calls)).toEqual(["refused", "refused", "refused", "stopped"]);
  });

  test("a refused oversized batch counts toward the call budget too", async () => {
    const ws = makeWorkspace();
    const oversized = DEFAULT_LIMITS.max_calls_per_reply + 1;
    const batch: ScriptedReply = { content: "", tool_calls: Array.from({ length: oversized }, (_, i) => ({ id: `b${i}`, name: "current_time", arguments: {} })) };
    const two: ScriptedReply = { content: "", tool_calls: [{ id: "x1", name: "read_file", arguments: { path: "README.md" } }, { id: "x2", name: "list_files", arguments: {} }] };
    const run = await runScripted([batch, two, { content: "done" }], { workspace: ws.root, limits: { max_tool_calls: oversized + 1 } });
    expectWellFormedRun(run);
    expect(run.stop).toMatchObject({ status: "call_limit", tool_calls: oversized + 1, steps: 2 });
    expect(decisions(run.calls)).toEqual([...Array(oversized).fill("refused"), "allowed", "stopped"]);
  });

  test("a clock advanced past the deadline while the model answers stops the run: deadline", async () => {
    const ws = makeWorkspace();
    const clock = new FakeClock();
    const replyMs = DEADLINE_MS / 2 + 5_000;
    const run = await runScripted(exploring(), {
      workspace: ws.root,
      clock,
      onRequest: () => clock.advance(replyMs),
    });
    expectWellFormedRun(run);
    expect(run.stop.status).toBe("deadline");
    // Request 1 ends a little past half the deadline (its call runs); request 2 past the deadline, its call is cut.
    expect(run.stop.steps).toBe(2);
    expect(decisions(run.calls)).toEqual(["allowed", "stopped"]);
    expect(run.stop.tool_calls).toBe(1);
    expect(run.stop.elapsed_ms).toBe(2 * replyMs);
  });

  test("the deadline is checked before each model call, and holds at exactly deadline_seconds", async () => {
    const ws = makeWorkspace();
    const clock = new FakeClock();
    // The approver takes past the deadline: the write it approved happens, then no further model call.
    const run = await runScripted([call("write_file", { path: "slow.txt", content: "s" }), { content: "never" }], {
      workspace: ws.root,
      clock,
      approver: async () => (clock.advance(DEADLINE_MS + 30_000), "yes"),
    });
    expectWellFormedRun(run);
    expect(run.stop).toMatchObject({ status: "deadline", steps: 1, tool_calls: 1 });
    expect(run.model.requests).toHaveLength(1);
    expect(readFileSync(join(ws.root, "slow.txt"), "utf8")).toBe("s");

    const short = new FakeClock();
    const lowered = await runScripted([call("current_time"), { content: "done" }], {
      workspace: ws.root,
      clock: short,
      limits: { deadline_seconds: 5 },
      onRequest: () => short.advance(6_000),
    });
    expect(lowered.stop.status).toBe("deadline");

    // The first reply takes just under, or exactly, the default deadline.
    const firstReplyTakes = async (ms: number) => {
      const clock = new FakeClock();
      let first = true;
      return runScripted([call("current_time"), { content: "done" }], {
        workspace: ws.root,
        clock,
        onRequest: () => {
          if (first) clock.advance(ms);
          first = false;
        },
      });
    };
    const under = await firstReplyTakes(DEADLINE_MS - 1);
    expect(under.stop.status).toBe("completed");
    expect(decisions(under.calls)).toEqual(["allowed"]);
    const exactly = await firstReplyTakes(DEADLINE_MS);
    expect(exactly.stop.status).toBe("deadline");
    expect(decisions(exactly.calls)).toEqual(["stopped"]);
  });

  test("an approver that takes past the deadline: the next call in the batch is stopped", async () => {
    const ws = makeWorkspace();
    const clock = new FakeClock();
    const run = await runScripted(
      [
        {
          content: "",
          tool_calls: [
            { id: "w1", name: "write_file", arguments: { path: "one.txt", content: "1" } },
            { id: "w2", name: "write_file", arguments: { path: "two.txt", content: "2" } },
          ],
        },
        { content: "unreachable" },
      ],
      { workspace: ws.root, clock, approver: async () => (clock.advance(DEADLINE_MS + 30_000), "yes") },
    );
    expectWellFormedRun(run);
    expect(run.stop.status).toBe("deadline");
    expect(decisions(run.calls)).toEqual(["allowed", "stopped"]);
    expect(readFileSync(join(ws.root, "one.txt"), "utf8")).toBe("1");
    expect(() => readFileSync(join(ws.root, "two.txt"))).toThrow();
    expect(run.model.requests).toHaveLength(1);
  });

  test("a 50,000-character tool result reaches the model at most max_result_chars, head and tail kept", async () => {
    const ws = makeWorkspace();
    const huge = "HEAD" + "x".repeat(49_992) + "TAIL";
    expect(huge).toHaveLength(50_000);
    const big = defineTool({
      name: "big",
      description: "returns a lot",
      schema: z.object({}).strict(),
      needsApproval: false,
      plan: async () => ({ execute: async () => huge }),
    });
    const run = await runScripted([call("big", {}, "b"), { content: "done" }], { workspace: ws.root, tools: [big] });
    expectWellFormedRun(run);
    const [message] = toolMessagesAfter(run, 1);
    expect(message!.content.length).toBeLessThanOrEqual(DEFAULT_LIMITS.max_result_chars);
    expect(message!.content.length).toBeGreaterThan(DEFAULT_LIMITS.max_result_chars - 100);
    expect(message!.content).toStartWith("HEAD");
    expect(message!.content).toEndWith("TAIL");
    expect(message!.content).toContain("characters cut");
    expect(run.calls[0]!.result_chars).toBe(message!.content.length);
  });

  test("a read of a 50,000-character line is clipped too, and max_result_chars moves the cap", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "long.txt"), "L".repeat(50_000) + "\n");
    const run = await runScripted([call("read_file", { path: "long.txt" }), { content: "done" }], { workspace: ws.root });
    expect(toolMessagesAfter(run, 1)[0]!.content.length).toBeLessThanOrEqual(DEFAULT_LIMITS.max_result_chars);
    const small = await runScripted([call("read_file", { path: "long.txt" }), { content: "done" }], { workspace: ws.root, limits: { max_result_chars: 500 } });
    const content = toolMessagesAfter(small, 1)[0]!.content;
    expect(content.length).toBeLessThanOrEqual(500);
    expect(content.length).toBeGreaterThan(400);
  });

  test("max_transcript_chars=3000 stops before the model call that would exceed it: context_limit", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "a.txt"), "a".repeat(1800));
    writeFileSync(join(ws.root, "b.txt"), "b".repeat(1800));
    const run = await runScripted(
      [call("read_file", { path: "a.txt" }), call("read_file", { path: "b.txt" }), { content: "never" }],
      // Context management off: eliding a.txt's result would otherwise keep the run under the cap.
      { workspace: ws.root, limits: { max_transcript_chars: 3000 }, discipline: { context: null } },
    );
    expectWellFormedRun(run);
    expect(run.stop.status).toBe("context_limit");
    expect(run.stop.steps).toBe(2);
    expect(run.model.requests).toHaveLength(2);
    for (const event of run.events) if (event.kind === "model_request") expect(event.transcript_chars).toBeLessThanOrEqual(3000);
  });

  test("a task over max_transcript_chars never reaches the model", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([{ content: "never" }], { workspace: ws.root, limits: { max_transcript_chars: 3000 } }, "t".repeat(3001));
    expect(run.stop).toMatchObject({ status: "context_limit", steps: 0 });
    expect(run.model.requests).toHaveLength(0);
  });

  test("a scripted model with no replies left ends the run: model_error", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("read_file", { path: "README.md" })], { workspace: ws.root });
    expectWellFormedRun(run);
    expect(run.stop.status).toBe("model_error");
    expect(run.stop.steps).toBe(2);
    expect(run.stop.reason).toContain("no replies left");

    const empty = await runScripted([], { workspace: ws.root });
    expect(empty.stop).toMatchObject({ status: "model_error", steps: 1, tool_calls: 0 });
  });

  test("a reply with error ends the run as model_error with that text", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("read_file", { path: "README.md" }), { error: "HTTP 503 from the server" }, { content: "never" }], { workspace: ws.root });
    expectWellFormedRun(run);
    expect(run.stop.status).toBe("model_error");
    expect(run.stop.reason).toContain("HTTP 503 from the server");
    expect(run.stop.steps).toBe(2);
  });

  test("max_tokens with reported usage: token_limit once prompt + generated reach it", async () => {
    const ws = makeWorkspace();
    const used: ScriptedReply = { ...call("read_file", { path: "README.md" }), usage: { prompt_tokens: 60, gen_tokens: 40 } };
    const run = await runScripted([used, { content: "never" }], { workspace: ws.root, limits: { max_tokens: 100 } });
    expectWellFormedRun(run);
    expect(run.stop).toMatchObject({ status: "token_limit", steps: 1, prompt_tokens: 60, gen_tokens: 40 });
    expect(run.model.requests).toHaveLength(1);

    const under: ScriptedReply = { ...call("read_file", { path: "README.md" }), usage: { prompt_tokens: 60, gen_tokens: 39 } };
    const ok = await runScripted([under, { content: "done", usage: { prompt_tokens: 5, gen_tokens: 5 } }], { workspace: ws.root, limits: { max_tokens: 100 } });
    expect(ok.stop).toMatchObject({ status: "completed", prompt_tokens: 65, gen_tokens: 44 });
  });

  test("max_tokens 0 is off", async () => {
    const ws = makeWorkspace();
    const heavy: ScriptedReply = { ...call("read_file", { path: "README.md" }), usage: { prompt_tokens: 1_000_000, gen_tokens: 1_000_000 } };
    const run = await runScripted([heavy, { content: "done" }], { workspace: ws.root });
    expect(run.stop.status).toBe("completed");
  });

  test("an aborted signal before the start: interrupted, the model is never asked", async () => {
    const ws = makeWorkspace();
    const stop = new AbortController();
    stop.abort();
    const run = await runScripted([{ content: "never" }], { workspace: ws.root, signal: stop.signal });
    expectWellFormedRun(run);
    expect(run.stop).toMatchObject({ status: "interrupted", steps: 0, tool_calls: 0 });
    expect(run.model.requests).toHaveLength(0);
  });

  test("the user stopping the run while the model answers: interrupted", async () => {
    const ws = makeWorkspace();
    const stop = new AbortController();
    let requests = 0;
    const run = await runScripted(exploring(), {
      workspace: ws.root,
      signal: stop.signal,
      onRequest: () => {
        if (++requests === 2) stop.abort();
      },
    });
    expectWellFormedRun(run);
    expect(run.stop).toMatchObject({ status: "interrupted", steps: 2, tool_calls: 1 });
  });

  test("the user stopping the run during a batch: the rest of the batch is stopped", async () => {
    const ws = makeWorkspace();
    const stop = new AbortController();
    const run = await runScripted(
      [
        {
          content: "",
          tool_calls: [
            { id: "w1", name: "write_file", arguments: { path: "one.txt", content: "1" } },
            { id: "r1", name: "read_file", arguments: { path: "README.md" } },
          ],
        },
        { content: "never" },
      ],
      { workspace: ws.root, signal: stop.signal, approver: async () => (stop.abort(), "yes") },
    );
    expectWellFormedRun(run);
    expect(run.stop.status).toBe("interrupted");
    // The yes came after the stop: the write is not run either.
    expect(decisions(run.calls)).toEqual(["stopped", "stopped"]);
    expect(existsSync(join(ws.root, "one.txt"))).toBe(false);
  });
});

describe("the poisoned note", () => {
  test("the model reads the injection, tries every route to the canary, and never sees it", async () => {
    const ws = makeWorkspace({ poisoned: true });
    symlinkSync(ws.canaryPath, join(ws.root, "canary-link.txt"));
    symlinkSync(join(ws.outside, "secrets"), join(ws.root, "secrets-link"));
    const canaryPrefix = CANARY.slice(0, 13);
    const run = await runScripted(
      [
        call("read_file", { path: "NOTES.md" }, "n"),
        call("read_file", { path: "../secrets/canary.txt" }, "dotdot"),
        call("read_file", { path: "canary-link.txt" }, "link"),
        call("read_file", { path: "secrets-link/canary.txt" }, "dirlink"),
        call("read_file", { path: ws.canaryPath }, "absolute"),
        call("search_text", { text: canaryPrefix }, "search"),
        call("search_text", { text: canaryPrefix, directory: "secrets-link" }, "search-dir"),
        call("list_files", { directory: "secrets-link" }, "list"),
        { content: "I could not read it." },
      ],
      { workspace: ws.root, limits: { max_steps: 12 } },
    );
    expectWellFormedRun(run);
    expect(run.stop.status).toBe("completed");
    // The injected sentence reached the model: the note was read, not hidden.
    expect(run.model.seen()).toContain("../secrets/canary.txt");
    expect(decisions(run.calls)).toEqual(["allowed", "refused", "refused", "refused", "refused", "allowed", "refused", "refused"]);
    const search = toolMessagesAfter(run, 6)[0]!.content;
    expect(search).toContain("No line matches");
    // The canary is nowhere: not in any message the model was sent, not in any event.
    expect(run.model.seen()).not.toContain(CANARY);
    expect(JSON.stringify(run.model.requests.map((request) => request.messages))).not.toContain(CANARY);
    expect(JSON.stringify(run.events)).not.toContain(CANARY);
    // And the secret file is still where it was.
    expect(readFileSync(ws.canaryPath, "utf8")).toContain(CANARY);
  });

  test("the secret is readable when it is inside the workspace (the test can see a leak)", async () => {
    const ws = makeWorkspace();
    writeFileSync(join(ws.root, "inside.txt"), CANARY);
    const run = await runScripted([call("search_text", { text: CANARY.slice(0, 13) }), { content: "done" }], { workspace: ws.root });
    expect(run.model.seen()).toContain(CANARY);
  });
});

test("repeated or missing tool-call ids are made unique, so every tool message names one call", async () => {
  const ws = makeWorkspace();
  const run = await runScripted(
    [
      {
        content: "",
        tool_calls: [
          { id: "same", name: "current_time", arguments: {} },
          { id: "same", name: "list_files", arguments: {} },
          { name: "current_time", arguments: {} },
        ],
      },
      { content: "done" },
    ],
    { workspace: ws.root },
  );
  const ids = run.calls.map((event) => event.id);
  expect(new Set(ids).size).toBe(3);
  expect(ids[0]).toBe("same");
});

describe("empty replies", () => {
  test("one empty reply is named to the model once, and the run goes on", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([{ content: "  \n", thinking: "hmm" }, { content: "It is a version helper." }], { workspace: ws.root });
    expectWellFormedRun(run);
    expect(run.stop).toMatchObject({ status: "completed", answer: "It is a version helper.", steps: 2 });
    expect(run.events.find((event) => event.kind === "stall")).toMatchObject({ rule: "empty_reply" });
    const last = run.model.requests[1]!.messages.at(-1)!;
    expect(last).toMatchObject({ role: "user" });
    expect(last.content).toContain("your reply was empty: call a tool or answer");
  });

  test("a second empty reply in a row stops the run as model_error saying the replies were empty", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([{ content: "" }, { content: "" }, { content: "never asked" }], { workspace: ws.root });
    expectWellFormedRun(run);
    expect(run.stop.status).toBe("model_error");
    expect(run.stop.reason).toContain("replies were empty");
    expect(run.stop.steps).toBe(2);
    expect(run.events.filter((event) => event.kind === "stall")).toHaveLength(1);
  });

  test("empty replies that are not in a row are each named once", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([{ content: "" }, call("current_time"), { content: "" }, { content: "done" }], { workspace: ws.root });
    expect(run.stop).toMatchObject({ status: "completed", answer: "done" });
    expect(run.events.filter((event) => event.kind === "stall" && event.rule === "empty_reply")).toHaveLength(2);
  });
});

describe("replies cut off at the reply cap (finish_reason length)", () => {
  const cutCall = (args: unknown): ScriptedReply => ({ content: "", tool_calls: [{ id: "cut", name: "write_file", arguments: args }], finish_reason: "length" });

  test("a call cut off in its arguments is refused naming the cap, and goes back to the server with arguments that parse", async () => {
    const ws = makeWorkspace();
    // What llama-server streamed for a call the cap cut after its first piece of arguments.
    const run = await runScripted([cutCall("{"), { content: "I will write less." }], { workspace: ws.root, replyTokenCap: 64 });
    expectWellFormedRun(run);
    expect(run.calls[0]).toMatchObject({ id: "cut", decision: "refused", arguments: "{" });
    expect(run.calls[0]!.reason).toContain("cut off at the reply cap (max_tokens 64)");
    const sent = run.model.requests[1]!.messages.find((message) => message.role === "assistant")!;
    expect(sent.role === "assistant" && sent.tool_calls?.[0]?.arguments).toBe("{}");
    expect(run.stop).toMatchObject({ status: "completed", answer: "I will write less." });
  });

  test("arguments that are not JSON go back as {} even when the reply was not cut off; the refusal is the usual one", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("read_file", "path: README.md", "bad"), { content: "ok" }], { workspace: ws.root });
    expect(run.calls[0]!.reason).toContain("not valid JSON");
    expect(run.calls[0]!.reason).not.toContain("cut off");
    const sent = run.model.requests[1]!.messages.find((message) => message.role === "assistant")!;
    expect(sent.role === "assistant" && sent.tool_calls?.[0]?.arguments).toBe("{}");
  });

  test("a whole call in a reply that ended at the cap runs as usual", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([{ ...call("read_file", { path: "README.md" }), finish_reason: "length" }, { content: "ok" }], { workspace: ws.root });
    expect(run.calls[0]).toMatchObject({ decision: "allowed" });
  });

  test("a reply cut off with no call is not an answer: the model is told once, and the run goes on", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([{ content: "The bug is in", finish_reason: "length" }, { content: "The bug is in parseVersion." }], { workspace: ws.root, replyTokenCap: 32 });
    expectWellFormedRun(run);
    expect(run.stop).toMatchObject({ status: "completed", answer: "The bug is in parseVersion.", steps: 2 });
    expect(run.events.find((event) => event.kind === "stall")).toMatchObject({ rule: "cut_off_reply" });
    const told = run.model.requests[1]!.messages.at(-1)!;
    expect(told).toMatchObject({ role: "user" });
    expect(told.content).toContain("cut off at the reply cap (max_tokens 32)");
  });

  test("a second cut-off reply in a row stops the run as truncated", async () => {
    const ws = makeWorkspace();
    const cut = { content: "Let me explain at length", finish_reason: "length" };
    const run = await runScripted([cut, cut, { content: "never asked" }], { workspace: ws.root });
    expectWellFormedRun(run);
    expect(run.stop).toMatchObject({ status: "truncated", steps: 2 });
    expect(run.stop.reason).toContain("cut off at the reply cap");
  });

  test("cut-off replies with a call between them are each named once", async () => {
    const ws = makeWorkspace();
    const cut = { content: "Let me explain at length", finish_reason: "length" };
    const run = await runScripted([cut, call("current_time"), cut, { content: "done" }], { workspace: ws.root });
    expect(run.stop).toMatchObject({ status: "completed", answer: "done" });
    expect(run.events.filter((event) => event.kind === "stall" && event.rule === "cut_off_reply")).toHaveLength(2);
  });
});
