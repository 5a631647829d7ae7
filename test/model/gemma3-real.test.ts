/**
 * A model whose chat template knows no tools, against the real llama-server: the generated Gemma 3
 * model (scripts/llama-server.ts "gemma3": Gemma 3's real tokenizer and chat template, which has
 * no tools and raises unless roles alternate user/assistant; sliding-window layers). The replies
 * are scripted through a proxy (test/helpers/cache-proxy.ts), so every prompt is the real
 * server's to render and take or refuse.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { LlamaCppModel } from "../../src/model/llamacpp.ts";
import { ModelOptionsSchema } from "../../src/model/options.ts";
import { ToolProtocolModel } from "../../src/model/tool-protocol-model.ts";
import { TextCallModel } from "../../src/model/text-call-model.ts";
import { runAgent } from "../../src/core/loop.ts";
import { Checkpoint } from "../../src/core/checkpoint.ts";
import { Policy } from "../../src/core/policy.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { defaultTools } from "../../src/tools/index.ts";
import { resolveLimits } from "../../src/protocol/limits.ts";
import { systemClock } from "../../src/protocol/clock.ts";
import type { AgentEvent, EventOf } from "../../src/protocol/events.ts";
import type { ToolDeclaration } from "../../src/protocol/model.ts";
import { startCacheProxy } from "../helpers/cache-proxy.ts";
import type { CachedReply } from "../helpers/cache-server.ts";
import { glassbox } from "../helpers/cli.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { collect } from "../helpers/model.ts";
import { LLAMA_START_TIMEOUT, llamaServer, withoutLlama, type LlamaServer } from "../helpers/llama.ts";

const READ_FILE: ToolDeclaration = { name: "read_file", description: "Read a file.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const options = ModelOptionsSchema.parse({ max_tokens: 8, temperature: 0, seed: 1 });

async function run(url: string, root: string, setting: "auto" | "native"): Promise<AgentEvent[]> {
  const limits = resolveLimits({ max_steps: 4 });
  const checkpoint = new Checkpoint({ tools: defaultTools({}), workspace: new Workspace(root), clock: systemClock, policy: new Policy([], []), maxResultChars: limits.max_result_chars, execute: true });
  const events: AgentEvent[] = [];
  // As a session builds it: text-call recovery (on by default) inside the tool protocol.
  const model = new ToolProtocolModel(new TextCallModel(new LlamaCppModel("llamacpp", url, options)), setting);
  for await (const event of runAgent({ runId: "gemma3", task: "Read notes.txt and say what it says.", systemPrompt: "You are glassbox.", model, checkpoint, offerTools: true, limits, clock: systemClock, workspace: root })) events.push(event);
  return events;
}

/** The model's side: read notes.txt in the text form glassbox reads, then answer. */
const script = (messages: any[]): CachedReply =>
  messages.some((message) => String(message.content).includes("Result of read_file:") || message.role === "tool")
    ? { text: "The note says the cache is warm." }
    : { text: 'Let me read it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.txt"}}\n</tool_call>' };

describe.skipIf(await withoutLlama())("a model whose chat template knows no tools (Gemma 3's), against the real llama-server", () => {
  let server: LlamaServer;
  beforeAll(async () => {
    server = await llamaServer("gemma3");
  }, LLAMA_START_TIMEOUT);

  test("the server says its template has no tools, and refuses a native request that carries a tool call and its result with HTTP 400", async () => {
    const props = (await (await fetch(`${server.url}/props`)).json()) as any;
    expect(props.chat_template_caps.supports_tools).toBe(false);
    const native = new LlamaCppModel("llamacpp", server.url, options);
    const messages = [
      { role: "system" as const, content: "You are glassbox." },
      { role: "user" as const, content: "Read notes.txt." },
      { role: "assistant" as const, content: "", tool_calls: [{ id: "c1", name: "read_file", arguments: '{"path":"notes.txt"}' }] },
      { role: "tool" as const, tool_call_id: "c1", name: "read_file", content: "warm" },
    ];
    const first = await collect(native, { messages: messages.slice(0, 2), tools: [READ_FILE], signal: new AbortController().signal });
    expect(first.error).toBeNull();
    const { error } = await collect(native, { messages, tools: [READ_FILE], signal: new AbortController().signal });
    expect(error?.message).toContain("answered HTTP 400");
    expect(error?.message).toContain("Conversation roles must alternate user/assistant");
  });

  test("today's native run ends in the server's HTTP 400 at its first tool result; with tool_protocol auto the run works: call, result, answer", async () => {
    const root = tempFolder("gemma3");
    writeFileSync(join(root, "notes.txt"), "the cache is warm\n");
    const nativeProxy = startCacheProxy(32_768, server.url, script);
    const nativeEvents = await run(nativeProxy.url, root, "native").finally(() => nativeProxy.stop());
    const nativeStop = nativeEvents.at(-1) as EventOf<"stop">;
    expect(nativeStop.status).toBe("model_error");
    expect(nativeStop.reason).toContain("HTTP 400");

    const proxy = startCacheProxy(32_768, server.url, script);
    const events = await run(proxy.url, root, "auto").finally(() => proxy.stop());
    expect((events[0] as EventOf<"run_start">).tool_protocol).toBe("prompted");
    const call = events.find((event): event is EventOf<"tool_call"> => event.kind === "tool_call")!;
    expect(call).toMatchObject({ tool: "read_file", decision: "allowed", from_text: true });
    expect(call.result).toContain("the cache is warm");
    const stop = events.at(-1) as EventOf<"stop">;
    expect(stop.status).toBe("completed");
    expect(stop.answer).toBe("The note says the cache is warm.");
    // Every prompt the real server rendered: no tools, one system message, then user/assistant in turn.
    expect(proxy.records).toHaveLength(2);
    for (const record of proxy.records) {
      const roles = record.messages.map((message) => message.role);
      expect(roles).toEqual(["system", ...roles.slice(1).map((_, at) => (at % 2 === 0 ? "user" : "assistant"))]);
    }
    expect(proxy.records[1]!.messages.at(-1)!.content).toBe(`Result of read_file:\n${call.result}`);
  });

  test("doctor names the prompted protocol and does not send the person to find another model", async () => {
    const cli = await glassbox(["doctor", "--model", `llamacpp:${server.url}`, "--workspace", tempFolder("gemma3-doctor")], { timeoutMs: 90_000 });
    expect(cli.stdout).toContain("tool protocol: prompted (the server's chat template has no tools)");
    expect(cli.stdout).toContain("the chat template has no tools: glassbox describes them in the system prompt");
    expect(cli.stdout).not.toMatch(/a model whose template has tools|use a model trained for tool calls|pick a model with tool support/);
  }, 100_000);
});
