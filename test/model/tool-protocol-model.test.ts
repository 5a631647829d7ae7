import { expect, test } from "bun:test";
import { ToolProtocolModel, refusesTools } from "../../src/model/tool-protocol-model.ts";
import { ModelError, type ModelClient, type ModelDelta, type ModelRequest, type ToolDeclaration, type ToolProtocolSetting } from "../../src/protocol/model.ts";
import type { Message } from "../../src/protocol/messages.ts";
import { assembled, collect } from "../helpers/model.ts";
import { LlamaCppModel } from "../../src/model/llamacpp.ts";
import { OllamaModel } from "../../src/model/ollama.ts";
import { ModelOptionsSchema } from "../../src/model/options.ts";
import { fakeOllama, llamaCppServer, llamaCppTextScene, ollamaExample } from "../helpers/fake-server.ts";

const READ: ToolDeclaration = { name: "read_file", description: "Read a file.", parameters: { type: "object", properties: { path: { type: "string" } } } };

/** llama-server b11669's answer to a tool-role message under Gemma 3's template (seen on the real server, test/model/gemma3-real.test.ts). */
const GEMMA3_REFUSAL =
  'http://127.0.0.1:8080/v1/chat/completions answered HTTP 400: Unable to generate parser for this template. Automatic parser generation failed: \n------------\nWhile executing CallExpression at line 19, column 27 in source:\n...% 2 == 0) -%}↵        {{ raise_exception("Conversation roles must alternate user...\n                                           ^\nError: Jinja Exception: Conversation roles must alternate user/assistant/user/assistant/...';

const RECORD: Message[] = [
  { role: "system", content: "You are a test." },
  { role: "user", content: "Read a.txt." },
  { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "read_file", arguments: '{"path":"a.txt"}' }] },
  { role: "tool", tool_call_id: "c1", name: "read_file", content: "alpha" },
];

/** A server: says (or not) whether its template has tools, refuses what a tool-less template refuses, answers with `text`. */
class FakeServer implements ModelClient {
  readonly name = "fake";
  requests: ModelRequest[] = [];
  constructor(
    private readonly tools: boolean | null,
    private readonly text: string,
    private readonly refuseToolRoles = false,
  ) {}
  templateTools = async () => this.tools;
  countPromptTokens = async (messages: Message[], tools: ToolDeclaration[]) => messages.length * 100 + tools.length;
  async *reply(request: ModelRequest): AsyncIterable<ModelDelta> {
    this.requests.push(request);
    if (this.refuseToolRoles && (request.tools.length || request.messages.some((message) => message.role === "tool"))) throw new ModelError(GEMMA3_REFUSAL);
    yield { type: "text", text: this.text };
    yield { type: "done", finish_reason: "stop" };
  }
}

const request = (messages = RECORD): ModelRequest => ({ messages, tools: [READ], signal: new AbortController().signal });
const model = (server: FakeServer, setting: ToolProtocolSetting = "auto") => new ToolProtocolModel(server, setting);
const CALL_TEXT = 'Reading.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "b.txt"}}\n</tool_call>';

test("auto, a template with no tools: prompted; the server gets no tools and alternating roles, and the call in the reply's text is a call", async () => {
  const server = new FakeServer(false, CALL_TEXT);
  const client = model(server);
  expect(await client.toolProtocol(new AbortController().signal)).toEqual({ protocol: "prompted", why: "the server's chat template has no tools" });
  const { deltas, error } = await collect(client, request());
  expect(error).toBeNull();
  const sent = server.requests[0]!;
  expect(sent.tools).toEqual([]);
  expect(sent.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
  expect(sent.messages[0]!.content).toContain("- read_file: Read a file.");
  const reply = assembled(deltas);
  expect(reply.tool_calls.map((call) => [call.name, call.arguments])).toEqual([["read_file", { path: "b.txt" }]]);
  expect(reply.content).toBe("Reading.");
});

test("auto, a template with tools: native, the request passed through as it is", async () => {
  const server = new FakeServer(true, "hello");
  const client = model(server);
  expect((await client.toolProtocol(new AbortController().signal)).protocol).toBe("native");
  await collect(client, request());
  expect(server.requests[0]).toMatchObject({ tools: [READ], messages: RECORD });
});

test("auto, a server that does not say: native until it refuses tool roles, then prompted from then on, said once, the request sent again", async () => {
  const server = new FakeServer(null, CALL_TEXT, true);
  const client = model(server);
  const first = await collect(client, request());
  expect(first.error).toBeNull();
  expect(first.deltas.filter((delta) => delta.type === "notice")).toHaveLength(1);
  expect(assembled(first.deltas).tool_calls).toHaveLength(1);
  expect((await client.toolProtocol(new AbortController().signal)).protocol).toBe("prompted");
  const second = await collect(client, request());
  expect(second.deltas.some((delta) => delta.type === "notice")).toBe(false);
  expect(server.requests.map((sent) => sent.tools.length)).toEqual([1, 0, 0]);
});

test("native in the config: never switched; the server's refusal is the run's error", async () => {
  const client = model(new FakeServer(false, CALL_TEXT, true), "native");
  expect((await client.toolProtocol(new AbortController().signal)).protocol).toBe("native");
  const { error } = await collect(client, request());
  expect(error?.message).toContain("roles must alternate");
});

test("prompted in the config: prompted even where the template has tools", async () => {
  const server = new FakeServer(true, "done");
  await collect(model(server, "prompted"), request());
  expect(server.requests[0]!.tools).toEqual([]);
});

test("another failure (a prompt over the window) is no refusal of tools: no switch", async () => {
  expect(refusesTools(new ModelError(GEMMA3_REFUSAL))).toBe(true);
  expect(refusesTools(new ModelError("registry.ollama.ai/library/gemma3:latest does not support tools"))).toBe(true);
  expect(refusesTools(new ModelError("the prompt (40000 tokens) does not fit the server's context window (32768 tokens)", "context_limit"))).toBe(false);
  expect(refusesTools(new Error("Conversation roles must alternate"))).toBe(false);
});

test("the prompt is counted as it is sent: prompted messages, no tools", async () => {
  const server = new FakeServer(false, "");
  const counted = await model(server).countPromptTokens(RECORD, [READ], new AbortController().signal);
  expect(counted).toBe(4 * 100);
  expect(await model(new FakeServer(true, "")).countPromptTokens(RECORD, [READ], new AbortController().signal)).toBe(4 * 100 + 1);
});

test("what each adapter says of its template: llama.cpp's chat_template_caps, Ollama's tools capability", async () => {
  const signal = new AbortController().signal;
  const options = ModelOptionsSchema.parse({});
  const llama = (supports: boolean) => llamaCppServer(() => llamaCppTextScene("OK"), (props) => ({ ...props, chat_template_caps: { ...props.chat_template_caps, supports_tools: supports } }));
  expect(await new LlamaCppModel("llamacpp", llama(false).url, options).templateTools(signal)).toBe(false);
  expect(await new LlamaCppModel("llamacpp", llama(true).url, options).templateTools(signal)).toBe(true);
  const ollama = (capabilities: string[]) => fakeOllama([{ name: "gemma3:4b", size: 1, contextLength: 131_072, capabilities }], () => ollamaExample("01-text-stream"));
  expect(await new OllamaModel("ollama:gemma3:4b", "gemma3:4b", ollama(["completion", "vision"]).url, options).templateTools(signal)).toBe(false);
  expect(await new OllamaModel("ollama:qwen3", "gemma3:4b", ollama(["completion", "tools"]).url, options).templateTools(signal)).toBe(true);
  // Nobody answers: not known, and auto stays native until a refusal.
  expect(await new LlamaCppModel("llamacpp", "http://127.0.0.1:9", options).templateTools(signal)).toBeNull();
});
