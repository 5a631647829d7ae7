import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { glassbox } from "../helpers/cli.ts";
import { SSE_HEADERS, llamaChunk, llamaCppServer, llamaCppTextScene } from "../helpers/fake-server.ts";
import { makeWorkspace, tempFolder } from "../helpers/workspace.ts";
import { sessionsFolder } from "../../src/session/store.ts";

/** 200 KB of `[`: JSON.stringify, structuredClone and every recursive walk of the parsed value overflow on it. */
const DEEP = "[".repeat(100_000) + "]".repeat(100_000);
const TOO_DEEP = "The arguments of read_file are nested deeper than 64 levels, the most allowed; send a flat JSON object.";

const runIn = (workspace: string, model: string, ...rest: string[]) => glassbox(["run", "--json", "--model", model, "--workspace", workspace, ...rest, "read it"]);

/** The run went on: the hostile call refused, the answer after it, the stop last in the log. */
function expectRefusedAndGoneOn(result: Awaited<ReturnType<typeof glassbox>>, workspace: string) {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const calls = result.events.filter((event) => event.kind === "tool_call");
  expect(calls).toEqual([expect.objectContaining({ tool: "read_file", decision: "refused", reason: TOO_DEEP })]);
  expect(result.events.at(-1)).toMatchObject({ kind: "stop", status: "completed", answer: "done" });
  const runs = join(workspace, ".glassbox", "runs");
  const log = readFileSync(join(runs, readdirSync(runs)[0]!), "utf8").trim().split("\n");
  expect(JSON.parse(log.at(-1)!)).toMatchObject({ kind: "stop", status: "completed" });
  // The session was saved whole: every line parses.
  const [session] = readdirSync(sessionsFolder(workspace));
  for (const line of readFileSync(join(sessionsFolder(workspace), session!), "utf8").trim().split("\n")) JSON.parse(line);
}

describe("arguments nested 200 KB deep, through the whole command", () => {
  test("a scripted value: refused, recorded as text, the session saved, the run goes on", async () => {
    const ws = makeWorkspace();
    const folder = tempFolder("hostile");
    const script = join(folder, "script.json");
    // Written by hand: JSON.stringify would overflow on the value this file holds.
    writeFileSync(script, `{"replies":[{"content":"","tool_calls":[{"id":"c1","name":"read_file","arguments":{"path":${DEEP}}}]},{"content":"done"}]}`);
    const recording = join(folder, "recorded.json");
    const result = await runIn(ws.root, `scripted:${script}`, "--record", recording);
    expectRefusedAndGoneOn(result, ws.root);
    const recorded = JSON.parse(readFileSync(recording, "utf8"));
    expect(recorded.replies[0].tool_calls[0].arguments).toBe(`{"path":${DEEP}}`);
  }, 30_000);

  test("a llama.cpp tool call streamed as text: refused, and sent back to the server as {}", async () => {
    const ws = makeWorkspace();
    const deepCall = {
      status: 200,
      headers: SSE_HEADERS,
      pieces: [
        llamaChunk({ role: "assistant", content: null }),
        llamaChunk({ tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "read_file", arguments: "" } }] }),
        llamaChunk({ tool_calls: [{ index: 0, function: { arguments: `{"path":${DEEP}}` } }] }),
        llamaChunk({}, "tool_calls"),
        "data: [DONE]\n\n",
      ],
    };
    const server = llamaCppServer((n) => [deepCall, llamaCppTextScene("done")][n]!);
    const result = await runIn(ws.root, `llamacpp:${server.url}`);
    expectRefusedAndGoneOn(result, ws.root);
    const chats = server.requests.filter((request) => request.path === "/v1/chat/completions");
    const replayed = chats[1]!.body.messages.find((message: { role: string }) => message.role === "assistant");
    expect(replayed.tool_calls[0].function.arguments).toBe("{}");
  }, 30_000);
});
