/**
 * The prompt cache of a sliding-window model across a compaction, on the real llama-server with the
 * generated Gemma 3 model (sliding-window layers, window 128). A run reads files one by one (the
 * replies scripted through test/helpers/cache-proxy.ts, calls in the prompted protocol's text form)
 * in a window small enough that old results are elided: a change early in the conversation.
 * - a server started without --swa-full (an outside one) reprocesses the whole prompt after it,
 *   and glassbox says so: a cache_miss naming the changed message and --swa-full;
 * - under glassbox's own launch (ggufLaunch: --swa-full for these layers) the server keeps the
 *   prefix up to the change: every request reprocesses at most what changed (within 64 tokens of
 *   the common prefix of the two prompts as the server tokenizes them), and no miss is said.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { llamaServerExecutable, testModel } from "../../scripts/llama-server.ts";
import { LlamaCppModel } from "../../src/model/llamacpp.ts";
import { GgufModel } from "../../src/model/gguf-model.ts";
import { ggufLaunch } from "../../src/model/llama-server-launch.ts";
import { DEFAULT_MODEL_OPTIONS } from "../../src/model/options.ts";
import { ToolProtocolModel } from "../../src/model/tool-protocol-model.ts";
import { runAgent } from "../../src/core/loop.ts";
import { SUMMARY_REQUEST } from "../../src/core/context.ts";
import { Checkpoint } from "../../src/core/checkpoint.ts";
import { Policy } from "../../src/core/policy.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { defaultTools } from "../../src/tools/index.ts";
import { resolveLimits } from "../../src/protocol/limits.ts";
import { systemClock } from "../../src/protocol/clock.ts";
import type { AgentEvent, EventOf } from "../../src/protocol/events.ts";
import { ConfigSchema } from "../../src/session/config.ts";
import { startCacheProxy, type ProxyRecord } from "../helpers/cache-proxy.ts";
import type { CachedReply } from "../helpers/cache-server.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { LLAMA_START_TIMEOUT, llamaServer, withoutLlama } from "../helpers/llama.ts";

const FILES = 26;
const WINDOW = 16_384;

function workspace(): string {
  const root = tempFolder("gemma3-cache");
  mkdirSync(join(root, "notes"));
  for (let n = 1; n <= FILES; n++) {
    const lines = Array.from({ length: 24 }, (_, line) => `${n}.${line} the slot keeps prefix ${(n * 37 + line * 11) % 101} of window ${(n * 13 + line) % 59}.`);
    writeFileSync(join(root, "notes", `n${n}.md`), lines.join("\n") + "\n");
  }
  return root;
}

/** Reads the notes one by one in the prompted protocol's text form, then answers. */
function script(): (messages: any[]) => CachedReply {
  let step = 0;
  return (messages) => {
    if (String(messages.at(-1)?.content ?? "").endsWith(SUMMARY_REQUEST)) return { text: `Read notes n1 to n${step} so far; the rest remain.` };
    step++;
    if (step > FILES) return { text: "All notes are read." };
    return { text: `<tool_call>\n{"name": "read_file", "arguments": {"path": "notes/n${step}.md"}}\n</tool_call>` };
  };
}

async function run(server: string): Promise<{ events: AgentEvent[]; records: ProxyRecord[] }> {
  const root = workspace();
  const proxy = startCacheProxy(WINDOW, server, script());
  const limits = resolveLimits({ max_steps: FILES + 4 });
  const checkpoint = new Checkpoint({ tools: defaultTools({}), workspace: new Workspace(root), clock: systemClock, policy: new Policy([], []), maxResultChars: limits.max_result_chars, execute: true });
  const model = new ToolProtocolModel(new LlamaCppModel("llamacpp", proxy.url, DEFAULT_MODEL_OPTIONS), "auto");
  const events: AgentEvent[] = [];
  try {
    for await (const event of runAgent({ runId: "cache", task: "Read every note in notes/, one by one.", systemPrompt: "You are glassbox.", model, checkpoint, offerTools: true, limits, clock: systemClock, workspace: root, replyTokenCap: 256 })) events.push(event);
  } finally {
    proxy.stop();
  }
  return { events, records: proxy.records };
}

/** The tokens two prompts share from their start, as the server renders and tokenizes them: what its cache could keep. */
async function commonPrefix(server: string, a: ProxyRecord, b: ProxyRecord): Promise<number> {
  const tokens = async (record: ProxyRecord) => {
    const rendered = (await (await fetch(`${server}/apply-template`, { method: "POST", body: JSON.stringify({ messages: record.messages }) })).json()) as { prompt: string };
    return ((await (await fetch(`${server}/tokenize`, { method: "POST", body: JSON.stringify({ content: rendered.prompt }) })).json()) as { tokens: number[] }).tokens;
  };
  const [x, y] = [await tokens(a), await tokens(b)];
  let shared = 0;
  while (shared < x.length && shared < y.length && x[shared] === y[shared]) shared++;
  return shared;
}

const compactions = (events: AgentEvent[]) => events.filter((event) => event.kind === "context_elided" || event.kind === "context_summarized").length;

describe.skipIf(await withoutLlama())("a sliding-window model's prompt cache across a compaction, on the real llama-server", () => {
  let own: GgufModel;
  beforeAll(async () => {
    const launch = ggufLaunch(await testModel("gemma3"), ConfigSchema.parse({}), tempFolder("gemma3-launch"), 1, { GLASSBOX_LLAMA_SERVER: await llamaServerExecutable() }, 8 * 1024 ** 3);
    own = new GgufModel("gguf", launch, DEFAULT_MODEL_OPTIONS);
    await own.start();
  }, LLAMA_START_TIMEOUT);
  afterAll(async () => {
    await own?.stop();
  });

  test("a server without --swa-full reprocesses the whole prompt after a compaction, and the run says why", async () => {
    const outside = await llamaServer("gemma3");
    const { events, records } = await run(outside.url);
    expect((events.at(-1) as EventOf<"stop">).status).toBe("completed");
    expect(compactions(events)).toBeGreaterThan(0);
    const misses = events.filter((event): event is EventOf<"cache_miss"> => event.kind === "cache_miss");
    expect(misses.length).toBeGreaterThan(0);
    const miss = misses[0]!;
    expect(miss.cause).toMatch(/^the prompt changed at message \d+ \(compaction\)/);
    expect(miss.cause).toContain("--swa-full");
    expect(records[miss.step - 1]!.cached).toBe(miss.reused);
    expect(miss.reused).toBeLessThan(miss.expected / 2);
  }, 240_000);

  test("under glassbox's own launch (--swa-full), each request reprocesses at most what changed, within 64 tokens; no miss", async () => {
    expect(own.running!.command).toContain("--swa-full");
    const { events, records } = await run(own.running!.url);
    expect((events.at(-1) as EventOf<"stop">).status).toBe("completed");
    expect(compactions(events)).toBeGreaterThan(0);
    expect(events.filter((event) => event.kind === "cache_miss")).toEqual([]);
    for (let at = 1; at < records.length; at++) {
      const shared = await commonPrefix(own.running!.url, records[at - 1]!, records[at]!);
      expect(records[at]!.cached).toBeGreaterThanOrEqual(shared - 64);
    }
  }, 240_000);
});
