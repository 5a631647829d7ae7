// The run as an object: its stages can be driven one at a time, and a second Run (a sub-run)
// keeps its own record and counts beside the first.
import { expect, test } from "bun:test";
import { Checkpoint } from "../../src/core/checkpoint.ts";
import { Policy } from "../../src/core/policy.ts";
import { Run, type RunInput } from "../../src/core/run.ts";
import { resolveLimits } from "../../src/protocol/limits.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { defaultTools } from "../../src/tools/index.ts";
import { ScriptSchema, ScriptedModel, type ScriptedReply } from "../../src/model/scripted.ts";
import { makeWorkspace } from "../helpers/workspace.ts";
import { FakeClock, call } from "../helpers/run.ts";

function input(root: string, task: string, replies: ScriptedReply[]): RunInput {
  const clock = new FakeClock();
  const limits = resolveLimits({});
  const checkpoint = new Checkpoint({ tools: defaultTools({}), workspace: new Workspace(root), clock, policy: new Policy([], []), maxResultChars: limits.max_result_chars, execute: true });
  return { runId: task, task, systemPrompt: "You are a test.", model: new ScriptedModel("scripted:test", ScriptSchema.parse({ replies })), checkpoint, offerTools: true, limits, clock, workspace: root };
}

async function drain<T>(stage: AsyncGenerator<AgentEvent, T> | Generator<AgentEvent, T>): Promise<{ events: AgentEvent[]; result: T }> {
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await stage.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

test("each stage does its part: a read answered, then an answer without calls is the completed stop", async () => {
  const ws = makeWorkspace();
  const run = new Run(input(ws.root, "read it", [call("read_file", { path: "README.md" }, "c1"), { content: "It compares versions." }]));
  expect(run.startEvent()).toMatchObject({ kind: "run_start", task: "read it" });
  expect(run.beforeModel()).toBeNull();
  const first = await drain(run.askModel());
  if (!("reply" in first.result)) throw new Error("the model failed");
  expect(run.steps).toBe(1);
  expect((await drain(run.judgeReply(first.result))).result).toBeNull();
  const answered = await drain(run.answerCalls(first.result));
  expect(answered.result).toBeNull();
  expect(answered.events.map((event) => event.kind)).toContain("tool_call");
  expect(run.calls).toBe(1);
  const second = await drain(run.askModel());
  if (!("reply" in second.result)) throw new Error("the model failed");
  const judged = await drain(run.judgeReply(second.result));
  expect(judged.result).toEqual({ status: "completed", reason: "the model answered without calling a tool", answer: "It compares versions." });
  expect(run.stopEvent(judged.result as Exclude<typeof judged.result, "again" | null>)).toMatchObject({ kind: "stop", status: "completed", steps: 2, tool_calls: 1 });
});

test("a sub-run is a second Run: its record and counts are its own, the parent's stay as they were", async () => {
  const ws = makeWorkspace();
  const parent = new Run(input(ws.root, "parent", [call("read_file", { path: "README.md" }, "p1"), { content: "done" }]));
  const parentTurn = await drain(parent.askModel());
  if (!("reply" in parentTurn.result)) throw new Error("the model failed");
  const child = new Run(input(ws.root, "child", [call("list_files", {}, "k1"), call("read_file", { path: "README.md" }, "k2"), { content: "child done" }]));
  for (let turn = 0; turn < 2; turn++) {
    const asked = await drain(child.askModel());
    if (!("reply" in asked.result)) throw new Error("the model failed");
    await drain(child.answerCalls(asked.result));
  }
  expect(child).toMatchObject({ steps: 2, calls: 2 });
  expect(parent).toMatchObject({ steps: 1, calls: 0 });
  expect(parent.record.map((message) => message.role)).toEqual(["user", "assistant"]);
  expect(child.record[0]).toEqual({ role: "user", content: "child" });
});
