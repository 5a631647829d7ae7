import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Checkpoint } from "../../src/core/checkpoint.ts";
import { resolveLimits } from "../../src/protocol/limits.ts";
import { Policy } from "../../src/core/policy.ts";
import { runAgent } from "../../src/core/loop.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { RecordingModel } from "../../src/model/recorder.ts";
import { ScriptSchema, ScriptedModel, type ScriptedReply } from "../../src/model/scripted.ts";
import type { ModelClient, ModelDelta } from "../../src/protocol/model.ts";
import { defaultTools } from "../../src/tools/index.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { makeWorkspace, tempFolder } from "../helpers/workspace.ts";
import { FakeClock } from "../helpers/run.ts";

const scripted = (replies: ScriptedReply[]) => new ScriptedModel("scripted:test", ScriptSchema.parse({ replies }));
const recordFile = () => join(tempFolder("record"), "recorded.json");
const request = () => ({ messages: [{ role: "user" as const, content: "task" }], tools: [], signal: new AbortController().signal });
const loadRecorded = (file: string) => ScriptSchema.parse(JSON.parse(readFileSync(file, "utf8")));

async function drain(stream: AsyncIterable<ModelDelta>): Promise<ModelDelta[]> {
  const deltas: ModelDelta[] = [];
  for await (const delta of stream) deltas.push(delta);
  return deltas;
}

/** Runs the real loop with a fresh workspace and no approver. */
async function runWith(model: ModelClient): Promise<AgentEvent[]> {
  const ws = makeWorkspace();
  const clock = new FakeClock();
  const limits = resolveLimits({});
  const checkpoint = new Checkpoint({ tools: defaultTools({}), workspace: new Workspace(ws.root), clock, policy: new Policy(), maxResultChars: limits.max_result_chars, execute: true });
  const events: AgentEvent[] = [];
  for await (const event of runAgent({ runId: "r", task: "t", systemPrompt: "s", model, checkpoint, offerTools: true, limits, clock, workspace: ws.root })) events.push(event);
  return events;
}

const decisionsOf = (events: AgentEvent[]) =>
  events.flatMap((event) => (event.kind === "tool_call" ? [[event.id, event.tool, event.arguments, event.decision]] : []));
const stopOf = (events: AgentEvent[]) => {
  const { elapsed_ms: _elapsed, ...stop } = events.at(-1) as Extract<AgentEvent, { kind: "stop" }>;
  return stop;
};

describe("RecordingModel", () => {
  test("writes a playable file at once, before any reply", () => {
    const file = recordFile();
    new RecordingModel(scripted([]), file);
    expect(loadRecorded(file)).toEqual({ replies: [] });
  });

  test("passes deltas through untouched and keeps the inner model's name", async () => {
    const file = recordFile();
    const replies: ScriptedReply[] = [{ content: "hello", thinking: "pondering", usage: { prompt_tokens: 7, gen_tokens: 2 } }];
    const recorder = new RecordingModel(scripted(replies), file);
    expect(recorder.name).toBe("scripted:test");
    expect(await drain(recorder.reply(request()))).toEqual(await drain(scripted(replies).reply(request())));
  });

  test("writes each reply in the scripted format, the file rewritten after every reply", async () => {
    const file = recordFile();
    const recorder = new RecordingModel(
      scripted([
        { content: "", tool_calls: [{ id: "c1", name: "read_file", arguments: { path: "README.md" } }, { name: "list_files", arguments: "{}" }] },
        { content: "answer", thinking: "t", usage: { prompt_tokens: 5, gen_tokens: 6 }, finish_reason: "length" },
      ]),
      file,
    );
    await drain(recorder.reply(request()));
    expect(loadRecorded(file).replies).toHaveLength(1);
    expect(loadRecorded(file).replies[0]).toEqual({
      content: "",
      tool_calls: [
        { id: "c1", name: "read_file", arguments: { path: "README.md" } },
        { id: "s1c2", name: "list_files", arguments: "{}" },
      ],
      finish_reason: "tool_calls",
    });
    await drain(recorder.reply(request()));
    expect(loadRecorded(file).replies[1]).toEqual({ content: "answer", thinking: "t", usage: { prompt_tokens: 5, gen_tokens: 6 }, finish_reason: "length" });
    // No temporary files are left beside it.
    expect(readdirSync(join(file, ".."))).toEqual(["recorded.json"]);
  });

  test("a failed turn is recorded as an error reply and still thrown", async () => {
    const file = recordFile();
    const recorder = new RecordingModel(scripted([{ error: "HTTP 502" }]), file);
    await expect(drain(recorder.reply(request()))).rejects.toThrow("HTTP 502");
    await expect(drain(recorder.reply(request()))).rejects.toThrow("no replies left");
    const recorded = loadRecorded(file).replies;
    expect(recorded).toHaveLength(2);
    expect(recorded[0]).toMatchObject({ error: "HTTP 502" });
    expect(recorded[1]!.error).toContain("no replies left");
  });

  test("a recorded run plays back to the same events", async () => {
    const file = recordFile();
    const original: ScriptedReply[] = [
      { content: "", tool_calls: [{ name: "read_file", arguments: { path: "README.md" } }] },
      { content: "", tool_calls: [{ name: "read_file", arguments: '{"path":"../secrets/canary.txt"}' }, { name: "nope", arguments: [1] }] },
      { content: "", tool_calls: [{ name: "write_file", arguments: { path: "x.txt", content: "x" } }], usage: { prompt_tokens: 100, gen_tokens: 20 } },
      { content: "The answer." },
    ];
    const first = await runWith(new RecordingModel(scripted(original), file));
    expect(existsSync(file)).toBe(true);
    const replay = await runWith(new ScriptedModel("scripted:replay", loadRecorded(file)));
    expect(decisionsOf(first)).toHaveLength(4);
    expect(decisionsOf(first).map((row) => row[3])).toEqual(["allowed", "refused", "refused", "denied"]);
    expect(decisionsOf(replay)).toEqual(decisionsOf(first));
    expect(stopOf(replay)).toEqual(stopOf(first));
    expect(stopOf(first)).toMatchObject({ status: "completed", answer: "The answer.", steps: 4, tool_calls: 4 });
  });

  test("a run that ran out of replies plays back to the same model_error", async () => {
    const file = recordFile();
    const first = await runWith(new RecordingModel(scripted([{ content: "", tool_calls: [{ name: "list_files" }] }]), file));
    const replay = await runWith(new ScriptedModel("scripted:replay", loadRecorded(file)));
    expect(stopOf(first).status).toBe("model_error");
    expect(stopOf(replay)).toEqual(stopOf(first));
  });
});
