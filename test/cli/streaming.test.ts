import { expect, test, describe } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { glassbox } from "../helpers/cli.ts";
import { makeWorkspace } from "../helpers/workspace.ts";
import { llamaCppServer, llamaCppTextScene, llamaCppToolCallScene, ollamaExample, ollamaServer, ollamaToolCallScene } from "../helpers/fake-server.ts";
import { readWireLog, wireLogPath } from "../../src/trace/wire-log.ts";
import { LlamaCppModel } from "../../src/model/llamacpp.ts";
import { ModelOptionsSchema } from "../../src/model/options.ts";
import { Checkpoint } from "../../src/core/checkpoint.ts";
import { Policy } from "../../src/core/policy.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { runAgent } from "../../src/core/loop.ts";
import { resolveLimits } from "../../src/protocol/limits.ts";
import { systemClock } from "../../src/protocol/clock.ts";

const TASK = "What does this project do?";

describe("glassbox run against a fake llama.cpp server", () => {
  test("completes a tool-using task; the wire log holds every request and response", async () => {
    const ws = makeWorkspace();
    const server = llamaCppServer((n) => (n === 0 ? llamaCppToolCallScene("read_file", '{\n"path": "README.md"\n}') : llamaCppTextScene("It compares and sorts version numbers.")));
    const run = await glassbox(["run", "--json", "--model", `llamacpp:${server.url}`, "--workspace", ws.root, TASK]);
    expect(run.code).toBe(0);
    const stop = run.events.at(-1)!;
    expect(stop.kind).toBe("stop");
    expect(stop.status).toBe("completed");
    expect(stop.answer).toBe("It compares and sorts version numbers.");
    expect(run.events.find((event) => event.kind === "model_info")?.context_size).toBe(4096);
    const call = run.events.find((event) => event.kind === "tool_call")!;
    expect([call.tool, call.decision]).toEqual(["read_file", "allowed"]);

    const chats = server.requests.filter((seen) => seen.path === "/v1/chat/completions");
    expect(chats.length).toBe(2);
    const toolMessage = chats[1]!.body.messages.find((message: any) => message.role === "tool");
    expect(toolMessage.content).toContain("semver-lite");
    expect(toolMessage.tool_call_id).toBe("Abcdefghijklmnopqrstuvwxyz012345");

    const wire = readWireLog(wireLogPath(ws.root));
    expect(wire.map((entry) => entry.kind)).toEqual(["request", "response", "request", "response"]);
    expect((wire[0] as any).body).toEqual(chats[0]!.body);
    expect((wire[3] as any).message.content).toBe("It compares and sorts version numbers.");

    const lines = await glassbox(["wire", "--workspace", ws.root]);
    expect(lines.code).toBe(0);
    expect(lines.stdout.trim().split("\n").length).toBe(4);
    expect(lines.stdout).toContain("1 tool call(s), finish tool_calls");
  });

  test("a prompt the server says is too big ends context_limit with its numbers", async () => {
    const ws = makeWorkspace();
    const server = llamaCppServer(() => {
      const body = '{"error":{"code":400,"message":"request (10030 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":10030,"n_ctx":4096}}';
      return { status: 400, headers: { "Content-Type": "application/json; charset=utf-8" }, pieces: [body] };
    });
    const run = await glassbox(["run", "--json", "--model", `llamacpp:${server.url}`, "--workspace", ws.root, TASK]);
    expect(run.code).toBe(1);
    const stop = run.events.at(-1)!;
    expect(stop.status).toBe("context_limit");
    expect(stop.reason).toContain("10030");
    expect(stop.reason).toContain("4096");
  });

  test("a prompt that cannot fit the real window is not sent at all", async () => {
    const ws = makeWorkspace();
    const server = llamaCppServer(() => llamaCppTextScene("never"));
    // The transcript limit is raised so that only the fit against the server's window can stop it.
    const run = await glassbox(["run", "--json", "--limit", "max_transcript_chars=100000", "--model", `llamacpp:${server.url}`, "--workspace", ws.root, "x".repeat(20_000)]);
    expect(run.events.at(-1)!.status).toBe("context_limit");
    expect(run.events.at(-1)!.reason).toContain("context window of 4096 tokens");
    expect(server.requests.filter((seen) => seen.path === "/v1/chat/completions").length).toBe(0);
  });

  test("no server: model_error naming the address, exit 1, the log still ends with stop", async () => {
    const ws = makeWorkspace();
    const run = await glassbox(["run", "--json", "--model", "llamacpp:http://127.0.0.1:9", "--workspace", ws.root, TASK]);
    expect(run.code).toBe(1);
    const stop = run.events.at(-1)!;
    expect(stop.status).toBe("model_error");
    expect(stop.reason).toContain("http://127.0.0.1:9");
    expect(stop.reason).toContain("connection refused");
  });

  test("a stalled stream ends model_error within the idle timeout", async () => {
    const ws = makeWorkspace();
    const server = llamaCppServer(() => ({ ...llamaCppTextScene("one two three"), pieces: llamaCppTextScene("one two three").pieces.slice(0, 2), after: "hang" }));
    const config = join(ws.outside, "stall.json");
    await Bun.write(config, JSON.stringify({ model_options: { idle_timeout_seconds: 0.5 } }));
    const started = performance.now();
    const run = await glassbox(["run", "--json", "--config", config, "--model", `llamacpp:${server.url}`, "--workspace", ws.root, TASK]);
    expect(performance.now() - started).toBeLessThan(8000);
    const stop = run.events.at(-1)!;
    expect(stop.status).toBe("model_error");
    expect(stop.reason).toContain("stalled");
  });
});

describe("glassbox run against a fake Ollama server", () => {
  test("completes a tool-using task and always sends num_ctx", async () => {
    const ws = makeWorkspace();
    const server = ollamaServer((n) => (n === 0 ? ollamaToolCallScene("read_file", { path: "README.md" }) : ollamaExample("01-text-stream")));
    const run = await glassbox(["run", "--json", "--model", "ollama:qwen2.5:1.5b", "--base-url", server.url, "--workspace", ws.root, TASK]);
    expect(run.code).toBe(0);
    expect(run.events.at(-1)!.status).toBe("completed");
    const chats = server.requests.filter((seen) => seen.path === "/api/chat");
    expect(chats.length).toBe(2);
    for (const chat of chats) expect(chat.body.options.num_ctx).toBe(8192);
    expect(chats[1]!.body.messages.find((message: any) => message.role === "tool").content).toContain("semver-lite");
  });

  test("a model that is not pulled says how to pull it", async () => {
    const ws = makeWorkspace();
    const server = ollamaServer(() => ollamaExample("07-model-not-found"));
    const run = await glassbox(["run", "--json", "--model", "ollama:qwen9:1b", "--base-url", server.url, "--workspace", ws.root, TASK]);
    expect(run.events.at(-1)!.reason).toContain("ollama pull qwen9:1b");
    expect(existsSync(wireLogPath(ws.root))).toBe(true);
  });
});

describe("the loop over a real protocol", () => {
  test("a user interrupt aborts the request at once, keeps the partial text, ends interrupted", async () => {
    const ws = makeWorkspace();
    const scene = llamaCppTextScene("partial words before the user stops it");
    const server = llamaCppServer(() => ({ ...scene, pieces: scene.pieces.slice(0, 4), after: "hang" }));
    const model = new LlamaCppModel("llamacpp", server.url, ModelOptionsSchema.parse({ idle_timeout_seconds: 30 }));
    const abort = new AbortController();
    const events: any[] = [];
    const started = performance.now();
    for await (const event of runAgent({
      runId: "t",
      task: TASK,
      systemPrompt: "",
      model,
      checkpoint: new Checkpoint({ tools: [], workspace: new Workspace(ws.root), clock: systemClock, policy: new Policy(), maxResultChars: 2000, execute: true }),
      offerTools: false,
      limits: resolveLimits({}),
      clock: systemClock,
      workspace: ws.root,
      signal: abort.signal,
    })) {
      events.push(event);
      if (event.kind === "model_delta" && event.tokens === 3) abort.abort();
    }
    expect(performance.now() - started).toBeLessThan(2000);
    const stop = events.at(-1);
    expect(stop.status).toBe("interrupted");
    expect(stop.answer).toBe("partial words before ");
  });

  test("a server that counts far fewer prompt tokens than were sent raises truncation_suspected", async () => {
    const ws = makeWorkspace();
    const server = ollamaServer(() => ollamaExample("08-truncated-prompt"));
    const config = join(ws.outside, "wide.json");
    await Bun.write(config, JSON.stringify({ model_options: { num_ctx: 32768 }, limits: { max_transcript_chars: 100000 } }));
    const run = await glassbox(["run", "--json", "--config", config, "--model", "ollama:qwen2.5:1.5b", "--base-url", server.url, "--workspace", ws.root, "word ".repeat(8000)]);
    const warning = run.events.find((event) => event.kind === "truncation_suspected");
    expect(warning?.reported_prompt_tokens).toBe(2048);
    expect(warning?.estimated_prompt_tokens).toBeGreaterThan(8000);
  });
});
