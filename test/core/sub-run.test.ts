// explore(question): a sub-run with a fresh context and the read-only tools, whose answer alone
// reaches the parent; its steps, calls, tokens and time are the parent's budgets too; every one of
// its events carries the explore call's id; it stops with the parent's stop button.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent, EventOf } from "../../src/protocol/events.ts";
import type { Message } from "../../src/protocol/messages.ts";
import type { ScriptedReply } from "../../src/model/scripted.ts";
import { DEFAULT_COMPONENTS } from "../../src/protocol/components.ts";
import { DEFAULT_LIMITS } from "../../src/protocol/limits.ts";
import { defaultTools } from "../../src/tools/index.ts";
import { SUB_RUN_TOOLS } from "../../src/tools/explore.ts";
import { SUB_RUN_OPENING, exploreTask, subRunPrompt } from "../../src/core/sub-run.ts";
import { restoreContext } from "../../src/core/context.ts";
import { makeWorkspace } from "../helpers/workspace.ts";
import { FakeClock, call, runScripted, type ScriptedRun } from "../helpers/run.ts";
import { expectWellFormedRun } from "../helpers/invariants.ts";

const ask = (question: string, id = "e1"): ScriptedReply => call("explore", { question }, id);
const finish = (summary: string, id?: string): ScriptedReply => call("finish", { summary }, id);
const usage = (reply: ScriptedReply, prompt: number, gen: number): ScriptedReply => ({ ...reply, usage: { prompt_tokens: prompt, gen_tokens: gen } });

const own = (run: ScriptedRun) => run.events.filter((event) => event.sub_run === undefined);
const ofSubRun = (run: ScriptedRun, id = "e1") => run.events.filter((event) => event.sub_run === id);
const subStop = (run: ScriptedRun, id = "e1") => ofSubRun(run, id).find((event): event is EventOf<"stop"> => event.kind === "stop")!;
const exploreCall = (run: ScriptedRun, id = "e1") => run.calls.find((event) => event.id === id && event.sub_run === undefined)!;
/** The tool message the parent's model was sent for call `id`. */
const resultSent = (run: ScriptedRun, id = "e1") =>
  run.model.requests
    .flatMap((request) => request.messages)
    .find((message): message is Extract<Message, { role: "tool" }> => message.role === "tool" && message.tool_call_id === id)?.content;

describe("the answer alone reaches the parent", () => {
  test("a fresh context and the read-only tools; the parent's next request holds the answer and none of what the sub-run read", async () => {
    const ws = makeWorkspace();
    const readme = readFileSync(join(ws.root, "README.md"), "utf8");
    const run = await runScripted(
      [call("list_files", {}, "p1"), ask("What does README.md say the project is?"), call("read_file", { path: "README.md" }, "s1"), finish("README.md: semver-lite, a version helper.", "s2"), { content: "It is a version helper." }],
      { workspace: ws.root, systemPrompt: "You are glassbox." },
      "what is this project?",
    );
    expectWellFormedRun(run);
    expect(run.stop).toMatchObject({ status: "completed", answer: "It is a version helper." });
    const [parentFirst, subFirst, subSecond, parentAfter] = [run.model.requests[1]!, run.model.requests[2]!, run.model.requests[3]!, run.model.requests[4]!];
    // The sub-run starts with the same system prompt and nothing of the parent's conversation.
    expect(subFirst.messages).toEqual([
      { role: "system", content: "You are glassbox." },
      { role: "user", content: exploreTask("What does README.md say the project is?") },
    ]);
    expect(subFirst.tools.map((tool) => tool.name)).toEqual([...SUB_RUN_TOOLS]);
    expect(subSecond.messages.some((message) => message.role === "tool" && message.content.includes("semver-lite"))).toBe(true);
    // The parent: its own messages, then the call and its answer; the file's text never.
    expect(parentAfter.messages.slice(0, parentFirst.messages.length)).toEqual(parentFirst.messages);
    expect(parentAfter.messages.slice(-2)).toEqual([
      { role: "assistant", content: "", tool_calls: [{ id: "e1", name: "explore", arguments: { question: "What does README.md say the project is?" } }] },
      { role: "tool", tool_call_id: "e1", name: "explore", content: "README.md: semver-lite, a version helper." },
    ]);
    expect(JSON.stringify(parentAfter.messages)).not.toContain(readme.split("\n")[2]!);
    expect(exploreCall(run)).toMatchObject({ tool: "explore", decision: "allowed", result: "README.md: semver-lite, a version helper." });
  });

  test("an answer longer than max_result_chars reaches the parent clipped, head and tail kept", async () => {
    const ws = makeWorkspace();
    const long = `START ${"x".repeat(3000)} END`;
    const run = await runScripted([ask("q"), finish(long), { content: "ok" }], { workspace: ws.root, limits: { max_result_chars: 1000 } });
    const sent = resultSent(run)!;
    expect(sent.length).toBeLessThanOrEqual(1000);
    expect(sent).toStartWith("START");
    expect(sent).toEndWith("END");
    expect(sent).toContain("characters cut");
    // The sub-run's own stop keeps the whole answer (the log has it).
    expect(subStop(run).answer).toBe(long);
  });

  test("a sub-run that answers in text without finish: that text is the answer", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([ask("q"), { content: "It is in src/version.ts." }, { content: "done" }], { workspace: ws.root });
    expect(resultSent(run)).toBe("It is in src/version.ts.");
    expect(subStop(run)).toMatchObject({ status: "completed", reason: "the model answered without calling a tool" });
  });
});

describe("its prompt, cut so llama-server keeps the parent's (test/core/sub-run-llama.test.ts measures it)", () => {
  test("the sub-run's tools start with another tool than the parent's: the prompts part right after the system prompt", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([ask("q"), finish("a"), { content: "done" }], { workspace: ws.root });
    const [parent, sub] = [run.model.requests[0]!, run.model.requests[1]!];
    expect(sub.tools[0]!.name).not.toBe(parent.tools[0]!.name);
    expect(sub.messages[0]).toEqual(parent.messages[0]);
  });

  test("a system prompt under three quarters of the rest of the sub-run's first prompt is shared; a larger one is opened by a line of the sub-run's own", async () => {
    expect(subRunPrompt("x".repeat(750), 1000)).toBe("x".repeat(750));
    expect(subRunPrompt("x".repeat(751), 1000)).toBe(`${SUB_RUN_OPENING}\n\n${"x".repeat(751)}`);
    const ws = makeWorkspace();
    const large = "You are glassbox. ".repeat(400);
    const run = await runScripted([ask("q"), finish("a"), { content: "done" }], { workspace: ws.root, systemPrompt: large });
    expect(run.model.requests[1]!.messages[0]).toEqual({ role: "system", content: `${SUB_RUN_OPENING}\n\n${large}` });
    expect(run.model.requests[2]!.messages[0]).toEqual({ role: "system", content: large });
  });
});

describe("its events", () => {
  test("every one carries the explore call's id, its run_start and stop included, all before the parent's tool_call, which carries none", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([ask("where?", "e7"), call("search_text", { pattern: "compare" }, "s1"), finish("src/version.ts", "s2"), { content: "done" }], { workspace: ws.root });
    const tagged = ofSubRun(run, "e7");
    expect(tagged[0]).toMatchObject({ kind: "run_start", sub_run: "e7", run_id: "test-run/e7", tools: [...SUB_RUN_TOOLS] });
    expect(tagged.at(-1)).toMatchObject({ kind: "stop", sub_run: "e7", status: "completed", steps: 2, tool_calls: 2, answer: "src/version.ts" });
    const kinds = run.events.map((event) => `${event.kind}${event.sub_run ? "*" : ""}`).filter((kind) => kind !== "model_delta*" && kind !== "model_delta");
    expect(kinds).toEqual([
      "run_start", "model_request", "model_done", "model_reply",
      "run_start*", "model_request*", "model_done*", "model_reply*", "tool_call*", "model_request*", "model_done*", "model_reply*", "tool_call*", "stop*",
      "tool_call", "model_request", "model_done", "model_reply", "stop",
    ]);
    const parentCall = run.events.findIndex((event) => event.kind === "tool_call" && event.sub_run === undefined);
    expect(run.events.slice(parentCall + 1).some((event) => event.sub_run !== undefined)).toBe(false);
    expect(run.events.filter((event) => event.sub_run !== undefined && event.sub_run !== "e7")).toEqual([]);
  });

  test("steps are numbered once across the run: the sub-run's go on from the parent's; the explore call keeps its reply's step", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("list_files", {}, "p1"), ask("q"), call("list_files", {}, "s1"), finish("a"), { content: "done" }], { workspace: ws.root });
    const steps = (events: AgentEvent[]) => events.filter((event): event is EventOf<"model_request"> => event.kind === "model_request").map((event) => event.step);
    expect(steps(own(run))).toEqual([1, 2, 5]);
    expect(steps(ofSubRun(run))).toEqual([3, 4]);
    expect(exploreCall(run).step).toBe(2);
  });

  test("the stop says what the sub-runs spent of its counts, which include it", async () => {
    const ws = makeWorkspace();
    const run = await runScripted(
      [usage(ask("q"), 1000, 20), usage(call("list_files", {}, "s1"), 300, 10), usage(finish("a"), 400, 10), usage({ content: "done" }, 1100, 5)],
      { workspace: ws.root },
    );
    expect(run.stop).toMatchObject({ steps: 4, tool_calls: 3, prompt_tokens: 2800, gen_tokens: 45, sub_runs: { runs: 1, steps: 2, tool_calls: 2, prompt_tokens: 700, gen_tokens: 20 } });
    expect(subStop(run)).toMatchObject({ steps: 2, tool_calls: 2, prompt_tokens: 700, gen_tokens: 20 });
    expect(subStop(run)).not.toHaveProperty("sub_runs");
  });

  test("a run without sub-runs says nothing of them", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([{ content: "hi" }], { workspace: ws.root });
    expect(run.stop).not.toHaveProperty("sub_runs");
  });
});

describe("budgets: the parent's, and its own step limit", () => {
  test("max_sub_run_steps stops it step_limit; the parent's result says so, why, what it found and did, and the parent goes on", async () => {
    const ws = makeWorkspace();
    const run = await runScripted(
      [ask("q"), { content: "Looking at the source.", tool_calls: [{ id: "s1", name: "list_files", arguments: {} }] }, call("read_file", { path: "src/version.ts" }, "s2"), { content: "done anyway" }],
      { workspace: ws.root, limits: { max_sub_run_steps: 2 } },
    );
    expect(subStop(run)).toMatchObject({ status: "step_limit", reason: "the sub-run replied 2 times, the most a sub-run may (max_sub_run_steps)", steps: 2 });
    expect(resultSent(run)).toBe(
      "The sub-run stopped before it answered: step_limit (the sub-run replied 2 times, the most a sub-run may (max_sub_run_steps)).\n" +
        "What it had found so far:\nLooking at the source.\n" +
        'Its calls: list_files {}; read_file {"path":"src/version.ts"}.',
    );
    expect(run.stop).toMatchObject({ status: "completed", answer: "done anyway", steps: 4 });
  });

  test("its steps count against max_steps: a sub-run cut by the parent's budget ends step_limit, and so does the parent", async () => {
    const ws = makeWorkspace();
    const explorer = Array.from({ length: 10 }, (_, i) => call("read_file", { path: "README.md", start: i + 1, max_lines: 1 }, `s${i}`));
    const run = await runScripted([call("list_files", {}, "p1"), ask("q"), ...explorer], { workspace: ws.root, limits: { max_steps: 5 } });
    expect(subStop(run)).toMatchObject({ status: "step_limit", steps: 3, reason: "the model replied 5 times, the most allowed (max_steps)" });
    // The parent stops before another request: its record keeps the result, the event says it.
    expect(exploreCall(run).result).toStartWith("The sub-run stopped before it answered: step_limit (the model replied 5 times, the most allowed (max_steps)).");
    expect(run.stop).toMatchObject({ status: "step_limit", steps: 5 });
    expectWellFormedRun(run);
  });

  test("its calls count against max_tool_calls", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([ask("q"), call("list_files", {}, "s1"), call("list_files", { directory: "src" }, "s2"), call("list_files", { directory: "test" }, "s3"), call("list_files", {}, "p2")], {
      workspace: ws.root,
      limits: { max_tool_calls: 3 },
    });
    // The explore call is the first; the sub-run makes two and its third is stopped.
    expect(subStop(run)).toMatchObject({ status: "call_limit", tool_calls: 2 });
    expect(run.calls.filter((event) => event.sub_run).map((event) => event.decision)).toEqual(["allowed", "allowed", "stopped"]);
    expect(resultSent(run)).toContain("call_limit");
    // The parent's next call is one too many.
    expect(run.stop.status).toBe("call_limit");
    expect(run.stop.tool_calls).toBe(3);
  });

  test("its tokens count against max_tokens", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([usage(ask("q"), 500, 10), usage(call("list_files", {}, "s1"), 600, 10), usage(call("list_files", { directory: "src" }, "s2"), 700, 10), { content: "x" }], {
      workspace: ws.root,
      limits: { max_tokens: 1500 },
    });
    expect(subStop(run)).toMatchObject({ status: "token_limit", steps: 2, reason: "1830 tokens used of max_tokens 1500" });
    expect(run.stop).toMatchObject({ status: "token_limit", reason: "1830 tokens used of max_tokens 1500" });
  });

  test("its time counts against the deadline, measured from the parent's start", async () => {
    const ws = makeWorkspace();
    const clock = new FakeClock();
    const run = await runScripted([ask("q"), call("list_files", {}, "s1"), call("list_files", { directory: "src" }, "s2"), { content: "x" }], {
      workspace: ws.root,
      clock,
      limits: { deadline_seconds: 100 },
      onRequest: () => clock.advance(40_000),
    });
    expect(subStop(run)).toMatchObject({ status: "deadline", steps: 2, reason: "the run passed its deadline of 100s" });
    expect(exploreCall(run).result).toContain("deadline (the run passed its deadline of 100s)");
    expect(run.stop.status).toBe("deadline");
  });

  test("one at a time: two explore calls in one reply run one after the other, each answered", async () => {
    const ws = makeWorkspace();
    const both: ScriptedReply = { content: "", tool_calls: [{ id: "e1", name: "explore", arguments: { question: "a?" } }, { id: "e2", name: "explore", arguments: { question: "b?" } }] };
    const run = await runScripted([both, finish("A"), finish("B"), { content: "done" }], { workspace: ws.root });
    const order = run.events.filter((event) => event.kind === "run_start" || event.kind === "stop").map((event) => `${event.kind}:${event.sub_run ?? "parent"}`);
    expect(order).toEqual(["run_start:parent", "run_start:e1", "stop:e1", "run_start:e2", "stop:e2", "stop:parent"]);
    expect([resultSent(run, "e1"), resultSent(run, "e2")]).toEqual(["A", "B"]);
    expect(run.stop.sub_runs).toMatchObject({ runs: 2, steps: 2, tool_calls: 2 });
  });
});

describe("read-only, whatever the parent's rules allow", () => {
  test("the editing tools are not there; explore is not there either (sub-runs do not nest)", async () => {
    const ws = makeWorkspace();
    const before = readFileSync(join(ws.root, "README.md"), "utf8");
    const run = await runScripted(
      [ask("q"), call("write_file", { path: "README.md", content: "gone" }, "s1"), call("explore", { question: "deeper?" }, "s2"), finish("nothing"), { content: "done" }],
      { workspace: ws.root, allow: ["write_file", "explore"] },
    );
    const [write, nested] = run.calls.filter((event) => event.sub_run);
    expect(write).toMatchObject({ tool: "write_file", decision: "refused" });
    expect(write!.result).toStartWith('Refused: There is no tool named "write_file"; the tools are: read_file, search_text');
    expect(nested).toMatchObject({ tool: "explore", decision: "refused" });
    expect(readFileSync(join(ws.root, "README.md"), "utf8")).toBe(before);
  });

  test("a command a writable rule allows runs read-only (here no sandbox holds it, so it is refused); one no rule allows is denied without asking", async () => {
    const ws = makeWorkspace();
    let asked = 0;
    const run = await runScripted(
      [ask("q"), call("run_command", { argv: ["touch", "made.txt"] }, "s1"), call("run_command", { argv: ["ls"] }, "s2"), finish("nothing"), { content: "done" }],
      { workspace: ws.root, allow: ["run_command:touch *"], approver: async () => (asked++, "yes") },
    );
    const [touch, ls] = run.calls.filter((event) => event.sub_run);
    expect(touch).toMatchObject({ decision: "refused" });
    expect(touch!.reason).toContain("a read-only rule allowed it, but no sandbox here can keep the workspace read-only");
    expect(ls).toMatchObject({ decision: "denied" });
    expect(ls!.reason).toContain("is not run in a sub-run: it explores read-only and asks nobody");
    expect(asked).toBe(0);
  });

  test("a deny rule of the parent holds in the sub-run: the same checkpoint", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([ask("q"), call("read_file", { path: "README.md" }, "s1"), finish("nothing"), { content: "done" }], { workspace: ws.root, deny: ["read_file:README.md"] });
    expect(run.calls.find((event) => event.sub_run)).toMatchObject({ tool: "read_file", decision: "denied" });
  });

  test("a deny rule on explore itself refuses the sub-run before it starts", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([ask("q"), { content: "done" }], { workspace: ws.root, deny: ["explore"] });
    expect(exploreCall(run).decision).toBe("denied");
    expect(run.events.some((event) => event.sub_run)).toBe(false);
  });

  test("components.explore: false leaves explore out of the tools", () => {
    expect(defaultTools({}).map((tool) => tool.name)).toContain("explore");
    expect(defaultTools({}, {}, undefined, { ...DEFAULT_COMPONENTS, explore: false }).map((tool) => tool.name)).not.toContain("explore");
    expect(DEFAULT_LIMITS.max_sub_run_steps).toBe(12);
  });
});

describe("stopping", () => {
  test("the stop button stops the sub-run and the parent with it: both end interrupted", async () => {
    const ws = makeWorkspace();
    const stop = new AbortController();
    let requests = 0;
    const run = await runScripted([ask("q"), call("list_files", {}, "s1"), call("list_files", { directory: "src" }, "s2"), { content: "never" }], {
      workspace: ws.root,
      signal: stop.signal,
      onRequest: () => {
        if (++requests === 3) stop.abort();
      },
    });
    expect(subStop(run).status).toBe("interrupted");
    expect(resultSent(run)).toBeUndefined();
    expect(exploreCall(run).result).toStartWith("The sub-run stopped before it answered: interrupted (the user stopped the run).");
    expect(run.stop.status).toBe("interrupted");
    expectWellFormedRun(run);
  });

  test("a sub-run whose model fails ends model_error; the parent is told and goes on", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([ask("q"), { error: "the server went away" }, { content: "answered without it" }], { workspace: ws.root });
    expect(subStop(run)).toMatchObject({ status: "model_error", reason: "the server went away" });
    expect(resultSent(run)).toBe("The sub-run stopped before it answered: model_error (the server went away).\nIt had written no answer yet.");
    expect(run.stop).toMatchObject({ status: "completed", answer: "answered without it" });
  });

  test("a restored session takes no compaction of a sub-run's for its own", () => {
    const elided: AgentEvent = { kind: "context_elided", results: 1, chars_before: 10, chars_after: 5, ids: ["s1"], cap: 100, sub_run: "e1" };
    expect(restoreContext([elided]).elided.size).toBe(0);
    expect(restoreContext([{ ...elided, sub_run: undefined }]).elided.size).toBe(1);
  });
});
