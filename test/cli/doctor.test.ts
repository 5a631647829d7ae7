import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { doctor } from "../../src/cli/doctor.ts";
import { parseCli } from "../../src/cli/args.ts";
import { makeWorkspace } from "../helpers/workspace.ts";
import { llamaCppServer, llamaCppTextScene, llamaCppToolCallScene, ollamaExample, ollamaServer, ollamaToolCallScene, type SeenRequest } from "../helpers/fake-server.ts";

/** The doctor's one request that offers tools is its tool-call probe. */
const probing = (request: SeenRequest) => Array.isArray(request.body?.tools) && request.body.tools.length > 0;

async function runDoctor(argv: string[], config?: Record<string, unknown>): Promise<{ code: number; lines: string[] }> {
  const ws = makeWorkspace();
  if (config) writeFileSync(join(ws.root, "glassbox.json"), JSON.stringify(config));
  const lines: string[] = [];
  const code = await doctor(parseCli(["doctor", "--workspace", ws.root, ...argv]), (line) => lines.push(line));
  return { code, lines };
}

test("llama.cpp: up, models, real context size, tool support, a timed round trip", async () => {
  const server = llamaCppServer((_, request) => (probing(request) ? llamaCppToolCallScene("current_time", "{}") : llamaCppTextScene("OK")));
  const { code, lines } = await runDoctor(["--model", `llamacpp:${server.url}`]);
  const text = lines.join("\n");
  expect(code).toBe(0);
  expect(text).toContain(`server up at ${server.url}`);
  expect(text).toContain("models/tiny-32k.gguf");
  expect(text).toContain("context size 4096 tokens");
  expect(text).toContain("tool calls supported");
  expect(text).toMatch(/round trip \d+ ms: "OK"/);
  expect(text).toContain("ok    tool calls: native");
  expect(text).not.toContain("FAIL");
  // One probe, offering one tool.
  expect(server.requests.filter(probing).map((request) => request.body.tools.map((tool: any) => tool.function.name))).toEqual([["current_time"]]);
});

test("llama.cpp down: one failure with the fix", async () => {
  const { code, lines } = await runDoctor(["--model", "llamacpp:http://127.0.0.1:9"]);
  expect(code).toBe(1);
  expect(lines.join("\n")).toContain("connection refused");
  expect(lines.join("\n")).toContain("fix: start it: llama-server");
});

test("Ollama: a model that is not pulled is named with the pull command", async () => {
  const server = ollamaServer((_, request) => (probing(request) ? ollamaToolCallScene("current_time", {}) : ollamaExample("01-text-stream")));
  const missing = await runDoctor(["--model", "ollama:qwen9:1b", "--base-url", server.url]);
  expect(missing.code).toBe(1);
  expect(missing.lines.join("\n")).toContain("fix: ollama pull qwen9:1b");
  const present = await runDoctor(["--model", "ollama:qwen2.5:1.5b", "--base-url", server.url]);
  expect(present.code).toBe(0);
  expect(present.lines.join("\n")).toContain("model trained for 32768 tokens; glassbox asks for num_ctx 8192");
});

describe("the tool-call probe", () => {
  test("a model that writes its call as text: `tool calls: text (FORM)`, still ok", async () => {
    // qwen2.5-coder's habit (ollama/ollama#12174): the call as bare JSON in the text.
    const server = llamaCppServer((_, request) => (probing(request) ? llamaCppTextScene('{"name": "current_time", "arguments": {}}') : llamaCppTextScene("OK")));
    const { code, lines } = await runDoctor(["--model", `llamacpp:${server.url}`]);
    expect(code).toBe(0);
    expect(lines.join("\n")).toContain("ok    tool calls: text (json)");
  });

  test("qwen3-coder's <function=…> on Ollama: `tool calls: text (function_xml)`", async () => {
    const server = ollamaServer((_, request) =>
      probing(request)
        ? { status: 200, headers: { "Content-Type": "application/x-ndjson" }, pieces: [JSON.stringify({ model: "qwen2.5:1.5b", message: { role: "assistant", content: "<function=current_time>\n</function>" }, done: true, done_reason: "stop" }) + "\n"] }
        : ollamaExample("01-text-stream"),
    );
    const { code, lines } = await runDoctor(["--model", "ollama:qwen2.5:1.5b", "--base-url", server.url]);
    expect(code).toBe(0);
    expect(lines.join("\n")).toContain("tool calls: text (function_xml)");
  });

  test("llama.cpp whose template renders tools, answering in prose: the model is blamed, not --jinja", async () => {
    // The capture's /props says chat_template_caps.supports_tools: true.
    const server = llamaCppServer(() => llamaCppTextScene("It is noon."));
    const { code, lines } = await runDoctor(["--model", `llamacpp:${server.url}`]);
    expect(code).toBe(1);
    const text = lines.join("\n");
    expect(text).toContain('FAIL  tool calls: none (the model was offered one tool and answered in prose: "It is noon.")');
    expect(text).toContain("fix: use a model trained for tool calls");
    expect(text).not.toContain("--jinja");
  });

  test("a probe reply cut off at the reply cap (finish_reason length) is said as cut, not as prose", async () => {
    const cut = { ...llamaCppTextScene("Let me think about which tool could tell the time, and whether"), pieces: llamaCppTextScene("Let me think about which tool could tell the time, and whether").pieces.map((piece) => (typeof piece === "string" ? piece.replace('"finish_reason":"stop"', '"finish_reason":"length"') : piece)) };
    const server = llamaCppServer((_, request) => (probing(request) ? cut : llamaCppTextScene("OK")));
    const { code, lines } = await runDoctor(["--model", `llamacpp:${server.url}`]);
    expect(code).toBe(1);
    const text = lines.join("\n");
    expect(text).toContain("FAIL  tool calls: not known (the probe's reply was cut off at the reply cap (max_tokens 512) before any call: it was still writing, not answering in prose)");
    expect(text).toMatch(/fix: raise model_options.max_tokens/);
    expect(text).not.toContain("answered in prose");
    // The same words ended by the model itself are prose.
    const prose = llamaCppServer((_, request) => (probing(request) ? llamaCppTextScene("Let me think about which tool could tell the time, and whether") : llamaCppTextScene("OK")));
    expect((await runDoctor(["--model", `llamacpp:${prose.url}`])).lines.join("\n")).toContain("answered in prose");
  });

  const noTools = (props: any) => ({ ...props, chat_template_caps: { ...props.chat_template_caps, supports_tools: false, supports_tool_calls: false } });

  test("llama.cpp whose template cannot render tools, tool_protocol auto: the prompted protocol named, the tool described in the system prompt, no other model asked for", async () => {
    const server = llamaCppServer(() => llamaCppTextScene("It is noon."), noTools);
    const { code, lines } = await runDoctor(["--model", `llamacpp:${server.url}`]);
    const text = lines.join("\n");
    expect(text).toContain("ok    tool protocol: prompted (the server's chat template has no tools)");
    expect(text).toContain("ok    the chat template has no tools: glassbox describes them in the system prompt (the prompted tool protocol)");
    expect(text).toContain('FAIL  tool calls: none (the tool was described in the system prompt and the model answered in prose: "It is noon.")');
    expect(text).not.toMatch(/--jinja|--chat-template-file|use a model trained for tool calls/);
    expect(code).toBe(1);
    const probe = server.requests.find((request) => JSON.stringify(request.body?.messages ?? []).includes("current_time"))!;
    expect(probe.body.tools).toBeUndefined();
    expect(probe.body.messages[0].content).toContain("- current_time: The current date and time");
  });

  test("llama.cpp whose template cannot render tools, a model that writes the call as the prompt shows: doctor passes", async () => {
    const server = llamaCppServer(
      (_, request) => llamaCppTextScene(JSON.stringify(request.body?.messages ?? []).includes("current_time") ? '<tool_call>\n{"name": "current_time", "arguments": {}}\n</tool_call>' : "OK"),
      noTools,
    );
    const { code, lines } = await runDoctor(["--model", `llamacpp:${server.url}`]);
    expect(lines.join("\n")).toContain("ok    tool calls: text (tool_call)");
    expect(code).toBe(0);
  });

  test("llama.cpp whose template cannot render tools, tool_protocol native: the fix names --jinja and --chat-template-file", async () => {
    const server = llamaCppServer(() => llamaCppTextScene("It is noon."), noTools);
    const { code, lines } = await runDoctor(["--model", `llamacpp:${server.url}`], { tool_protocol: "native" });
    expect(lines.join("\n")).toContain('ok    tool protocol: native (tool_protocol is "native" in the config)');
    expect(code).toBe(1);
    const text = lines.join("\n");
    expect(text).toContain('FAIL  tool calls: none (the chat template cannot render tools; the model answered "It is noon.")');
    expect(text).toMatch(/tool calls: none[^\n]*\n\s+fix: start llama-server with --jinja[^\n]*--chat-template-file/);
  });

  test("llama.cpp that does not say what its template can do: both fixes", async () => {
    const server = llamaCppServer(
      () => llamaCppTextScene("It is noon."),
      ({ chat_template_caps: _dropped, ...props }) => props,
    );
    const { code, lines } = await runDoctor(["--model", `llamacpp:${server.url}`]);
    expect(code).toBe(1);
    const text = lines.join("\n");
    expect(text).toContain('FAIL  tool calls: none (the model was offered one tool and did not call it; it answered "It is noon.")');
    expect(text).toMatch(/fix: start llama-server with --jinja.*; where the template has tools, use a model trained for tool calls/);
  });

  test("Ollama answering in plain text although its model lists the tools capability: the fix names a model trained for tool calls", async () => {
    const server = ollamaServer(() => ollamaExample("01-text-stream"));
    const { code, lines } = await runDoctor(["--model", "ollama:qwen2.5:1.5b", "--base-url", server.url]);
    expect(code).toBe(1);
    expect(lines.join("\n")).toMatch(/FAIL  tool calls: none \(the model was offered one tool and answered in prose[^\n]*\n\s+fix: use a model trained for tool calls/);
  });
});
