import { expect, test } from "bun:test";
import { CacheWatch } from "../../src/core/cache-watch.ts";
import type { Message } from "../../src/protocol/messages.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import type { ModelClient, ModelDelta } from "../../src/protocol/model.ts";
import { runAgent } from "../../src/core/loop.ts";
import { Checkpoint } from "../../src/core/checkpoint.ts";
import { Policy } from "../../src/core/policy.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { defaultTools } from "../../src/tools/index.ts";
import { resolveLimits } from "../../src/protocol/limits.ts";
import { formatEvent } from "../../src/cli/printer.ts";
import { FakeClock } from "../helpers/run.ts";
import { folderWith } from "../helpers/workspace.ts";

/** A conversation of `turns` user/assistant pairs of 400 characters each, after a system prompt of 400. */
function conversation(turns: number): Message[] {
  const messages: Message[] = [{ role: "system", content: "s".repeat(400) }];
  for (let turn = 0; turn < turns; turn++) messages.push({ role: "user", content: `${turn}`.padEnd(400, "u") }, { role: "assistant", content: `${turn}`.padEnd(400, "a") });
  return messages;
}

/** Figures from the real llama-server with the generated Gemma 3 model (sliding-window layers), 16 turns then a change at message 3: cache_n 1 of 2,839 without --swa-full, 324 with it. */
test("a change early in the conversation that the server did not keep is a miss, naming the message and the sliding-window cause", () => {
  const watch = new CacheWatch();
  const before = conversation(16);
  expect(watch.observe(1, before, [], 2973, 2794)).toBeNull();
  const after = before.map((message, index) => (index === 3 ? { ...message, content: "[cut]" } : message));
  const miss = watch.observe(2, after, [], 2839, 1)!;
  expect(miss).toMatchObject({ kind: "cache_miss", step: 2, reused: 1 });
  // The part before message 4 (index 3): 3 of the 33 messages' characters, of the previous prompt's 2,973 tokens.
  expect(miss.expected).toBe(Math.floor((2973 * 1200) / (33 * 400)));
  expect(miss.cause).toContain("the prompt changed at message 4");
  expect(miss.cause).toContain("--swa-full");
});

test("the tools, rendered before the messages, count in the part the server could keep", () => {
  const tools = [{ name: "read_file", description: "d".repeat(11_800), parameters: {} }];
  const toolChars = JSON.stringify(tools).length;
  const watch = new CacheWatch();
  const before = conversation(16);
  watch.observe(1, before, tools, 5973, 5794);
  const after = before.map((message, index) => (index === 3 ? { ...message, content: "[cut]" } : message));
  const miss = watch.observe(2, after, tools, 5839, 1)!;
  expect(miss.expected).toBe(Math.floor((5973 * (toolChars + 1200)) / (toolChars + 33 * 400)));
  // New tools: a change before the first message, nothing could be kept.
  expect(watch.observe(3, after, [], 5000, 0)).toBeNull();
});

test("a compaction whose prefix the server kept is no miss (--swa-full: 324 reused of about 270 allowed)", () => {
  const watch = new CacheWatch();
  const before = conversation(16);
  watch.observe(1, before, [], 2973, 2794);
  const after = before.map((message, index) => (index === 3 ? { ...message, content: "[cut]" } : message));
  expect(watch.observe(2, after, [], 2839, 324)).toBeNull();
});

test("a prompt that only grew, served whole: another client on the slot; what the model's side knows is added", () => {
  const watch = new CacheWatch(() => "a sliding-window model (gemma3) started without --swa-full");
  const first = conversation(4);
  watch.observe(1, first, [], 1200, 0);
  watch.observe(2, conversation(5), [], 1500, 1190);
  const miss = watch.observe(3, conversation(6), [], 1800, 12)!;
  expect(miss).toMatchObject({ reused: 12, expected: 1500 });
  expect(miss.cause).toStartWith("another client on the slot");
  expect(miss.cause).toContain("gemma3");
});

test("a server that never reuses anything: its cache is off", () => {
  const watch = new CacheWatch();
  watch.observe(1, conversation(4), [], 1200, 0);
  expect(watch.observe(2, conversation(5), [], 1500, 0)!.cause).toStartWith("the server's prompt cache is off");
});

test("small shortfalls, small prompts and servers that do not say are no miss", () => {
  const watch = new CacheWatch();
  watch.observe(1, conversation(1), [], 200, 0);
  expect(watch.observe(2, conversation(2), [], 400, 0)).toBeNull();
  expect(watch.observe(3, conversation(3), [], 600, null)).toBeNull();
  const grown = new CacheWatch();
  grown.observe(1, conversation(10), [], 3000, 2000);
  expect(grown.observe(2, conversation(11), [], 3300, 2999)).toBeNull();
  expect(grown.observe(3, conversation(12), [], 3600, 1700)).toBeNull();
  expect(grown.observe(4, conversation(13), [], 3900, 1700)).not.toBeNull();
});

test("a run says the miss as an event after the reply that showed it, and the printer's line says it too", async () => {
  const root = folderWith({ "a.txt": "alpha\n" }, "cache-watch");
  const limits = resolveLimits({ max_steps: 3 });
  const checkpoint = new Checkpoint({ tools: defaultTools({}), workspace: new Workspace(root), clock: new FakeClock(), policy: new Policy([], []), maxResultChars: limits.max_result_chars, execute: true });
  // The server's figures per request: the second reused all it could, the third nothing though the prompt only grew.
  const figures = [[1200, 0], [1500, 1190], [1800, 3]] as const;
  let request = 0;
  const model: ModelClient = {
    name: "server",
    async *reply(): AsyncIterable<ModelDelta> {
      const [prompt, cached] = figures[request++]!;
      yield { type: "tool_call", index: 0, id: `c${request}`, name: "read_file", arguments: '{"path":"a.txt"}' };
      yield { type: "usage", prompt_tokens: prompt, gen_tokens: 5, cached_tokens: cached, prefill_ms: 1 };
      yield { type: "done", finish_reason: "tool_calls" };
    },
  };
  const events: AgentEvent[] = [];
  for await (const event of runAgent({ runId: "r", task: "read a.txt", systemPrompt: "s".repeat(2000), model, checkpoint, offerTools: true, limits, clock: new FakeClock(), workspace: root })) events.push(event);
  const misses = events.filter((event) => event.kind === "cache_miss");
  expect(misses).toEqual([{ kind: "cache_miss", step: 3, reused: 3, expected: 1500, cause: expect.stringContaining("another client on the slot") }]);
  const reply = events.findIndex((event) => event.kind === "model_reply" && event.step === 3);
  expect(events[reply + 1]).toBe(misses[0]!);
  expect(formatEvent(misses[0]!)).toStartWith("[3] cache: the server reused 3 of 1500 prompt tokens it could have kept: another client on the slot");
});
