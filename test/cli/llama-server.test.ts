/**
 * Headless runs and doctor against a real llama-server (test/helpers/llama.ts), for what only a
 * real server showed: its template refuses a conversation holding a call's unparseable arguments
 * (HTTP 500), a reply the cap cut off is not an answer, its own count of the prompt, and doctor's
 * advice when a model answers in prose.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { glassbox, type CliResult } from "../helpers/cli.ts";
import { makeWorkspace } from "../helpers/workspace.ts";
import { LLAMA_START_TIMEOUT, llamaServer, withoutLlama, type LlamaServer } from "../helpers/llama.ts";

/** A workspace whose glassbox.json sets these model options. */
function workspaceWith(modelOptions: Record<string, unknown>): string {
  const { root } = makeWorkspace();
  const path = join(root, "glassbox.json");
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), model_options: { temperature: 0, seed: 1, ...modelOptions } }));
  return root;
}

const run = (server: LlamaServer, workspace: string, ...rest: string[]) =>
  glassbox(["run", "--json", "--model", `llamacpp:${server.url}`, "--workspace", workspace, ...rest, "Read README.md and say what the project is."], { timeoutMs: 90_000 });

const eventsOf = (result: CliResult, kind: string) => result.events.filter((event) => event.kind === kind);

describe.skipIf(await withoutLlama())("headless runs against a real llama-server", () => {
  let prose: LlamaServer;
  let tools: LlamaServer;
  beforeAll(async () => {
    [prose, tools] = await Promise.all([llamaServer("prose"), llamaServer("tools")]);
  }, LLAMA_START_TIMEOUT);

  test("a tool call cut off at the reply cap is refused naming the cap, and the server accepts the conversation after it", async () => {
    // Sixteen tokens end the tools model's call just inside its arguments: the server streams
    // `"arguments": "{"` with finish_reason "length", as it did in the issue.
    const result = await run(tools, workspaceWith({ max_tokens: 16 }), "--limit", "max_steps=2");
    const calls = eventsOf(result, "tool_call");
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls[0]).toMatchObject({ decision: "refused" });
    expect(calls[0]!.reason).toContain("cut off at the reply cap (max_tokens 16)");
    expect(() => JSON.parse(calls[0]!.arguments)).toThrow();
    // The second request carried the refused call and was answered: no HTTP 500 from the template.
    expect(eventsOf(result, "model_reply")).toHaveLength(2);
    expect(result.events.at(-1)).toMatchObject({ kind: "stop", status: "step_limit" });
  }, 120_000);

  test("replies cut off at the cap with no call: named once, then the run stops truncated, exit 1", async () => {
    const result = await run(prose, workspaceWith({ max_tokens: 4 }));
    expect(eventsOf(result, "model_reply").map((event) => event.finish_reason)).toEqual(["length", "length"]);
    expect(eventsOf(result, "stall")).toEqual([expect.objectContaining({ rule: "cut_off_reply" })]);
    expect(result.events.at(-1)).toMatchObject({ kind: "stop", status: "truncated" });
    expect(result.code).toBe(1);
  }, 120_000);

  test("each request's prompt size is the server's own count: what it reports after is the same", async () => {
    const result = await run(tools, workspaceWith({ max_tokens: 64 }), "--limit", "max_steps=2");
    const requests = eventsOf(result, "model_request");
    const replies = eventsOf(result, "model_reply");
    expect(requests).toHaveLength(2);
    expect(requests.map((event) => event.estimated_prompt_tokens)).toEqual(replies.map((event) => event.prompt_tokens));
    // No false alarm of a cut prompt.
    expect(eventsOf(result, "truncation_suspected")).toEqual([]);
  }, 120_000);
});

describe.skipIf(await withoutLlama())("doctor against a real llama-server", () => {
  // A reply cap of 48 tokens: the prose model never ends a reply by itself, and under a tool grammar it writes 20-100 tokens a second here.
  const doctor = (server: LlamaServer) => glassbox(["doctor", "--model", `llamacpp:${server.url}`, "--workspace", workspaceWith({ max_tokens: 48 })], { timeoutMs: 90_000 });

  test("a model that calls tools: `tool calls: native`, the window and the template's support read from the server", async () => {
    const result = await doctor(await llamaServer("tools"));
    expect(result.stdout).toContain("ok    context size 32768 tokens per slot");
    expect(result.stdout).toContain("ok    tool calls supported by the chat template");
    expect(result.stdout).toContain("ok    tool calls: native");
  }, LLAMA_START_TIMEOUT);

  test("a template with tools and a model that answers in prose: the model is named, not --jinja", async () => {
    const result = await doctor(await llamaServer("prose"));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("FAIL  tool calls: none (the model was offered one tool and answered in prose");
    expect(result.stdout).toContain("fix: use a model trained for tool calls");
    expect(result.stdout).not.toContain("--jinja");
  }, LLAMA_START_TIMEOUT);

  test("a template that cannot render tools (llama.cpp's built-in chatml): the prompted protocol under auto; under native the fix names --jinja and --chat-template-file", async () => {
    const server = await llamaServer("prose", { args: ["--chat-template", "chatml"] });
    const auto = await doctor(server);
    expect(auto.stdout).toContain("ok    tool protocol: prompted (the server's chat template has no tools)");
    expect(auto.stdout).toContain("FAIL  tool calls: none (the tool was described in the system prompt and the model answered in prose");
    const workspace = workspaceWith({ max_tokens: 48 });
    const path = join(workspace, "glassbox.json");
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), tool_protocol: "native" }));
    const result = await glassbox(["doctor", "--model", `llamacpp:${server.url}`, "--workspace", workspace], { timeoutMs: 90_000 });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("FAIL  tool calls: none (the chat template cannot render tools");
    expect(result.stdout).toMatch(/fix: start llama-server with --jinja[^\n]*--chat-template-file/);
  }, LLAMA_START_TIMEOUT);
});
