/**
 * Valid JSON of the wrong shape in a streamed reply (found by the property tests beside this
 * file): each ends the reply with a ModelError naming what came, never a TypeError from deep in
 * the reader, and never a delta typed as what it is not (a number as text, a list as a name).
 */
import { describe, expect, test } from "bun:test";
import { LlamaCppModel } from "../../src/model/llamacpp.ts";
import { OllamaModel } from "../../src/model/ollama.ts";
import { ModelOptionsSchema } from "../../src/model/options.ts";
import { ModelError, type ModelRequest } from "../../src/protocol/model.ts";
import { wellTyped } from "../../src/model/delta-shape.ts";
import { collect } from "../helpers/model.ts";
import { llamaChunk, startFakeServer, SSE_HEADERS } from "../helpers/fake-server.ts";

const options = ModelOptionsSchema.parse({ idle_timeout_seconds: 2 });
const request = (): ModelRequest => ({ messages: [{ role: "user", content: "hi" }], tools: [], signal: new AbortController().signal });

describe("llama.cpp: an event that is JSON but not a chunk", () => {
  const events: Array<[string, string]> = [
    ["null", "data: null\n\n"],
    ["a tool call that is null", llamaChunk({ tool_calls: [null] })],
    ["tool calls that are not a list", llamaChunk({ tool_calls: {} })],
    ["a tool call's index that is not a whole number", llamaChunk({ tool_calls: [{ index: 0.5, function: { name: "f" } }] })],
    ["a tool call's name that is a list", llamaChunk({ tool_calls: [{ index: 0, function: { name: ["f"] } }] })],
    ["a finish reason that is an object", llamaChunk({}, { reason: "stop" } as unknown as string)],
    ["usage counted in words", `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: "many", completion_tokens: 3 } })}\n\n`],
  ];
  for (const [name, event] of events) {
    test(name, async () => {
      const server = startFakeServer(() => ({ status: 200, headers: SSE_HEADERS, pieces: [llamaChunk({ content: "Hello" }), event, "data: [DONE]\n\n"] }));
      const { deltas, error } = await collect(new LlamaCppModel("llamacpp", server.url, options), request());
      expect(error).toBeInstanceOf(ModelError);
      expect(error!.message).toContain("sent an event that is not a chat completion chunk");
      expect(deltas.every(wellTyped)).toBe(true);
    });
  }
});

describe("Ollama: a line that is JSON but not a reply", () => {
  const line = (value: unknown) => JSON.stringify(value) + "\n";
  const lines: Array<[string, string]> = [
    ["null", "null\n"],
    ["content that is a number", line({ message: { role: "assistant", content: 5 }, done: false })],
    ["thinking that is an object", line({ message: { role: "assistant", thinking: { a: 1 } }, done: false })],
    ["tool calls that are not a list", line({ message: { role: "assistant", tool_calls: {} }, done: false })],
    ["a tool call that is null", line({ message: { role: "assistant", tool_calls: [null] }, done: false })],
    ["a tool call's name that is a list", line({ message: { role: "assistant", tool_calls: [{ function: { name: ["f"], arguments: {} } }] }, done: false })],
    ["counts that are text", line({ message: { role: "assistant", content: "" }, done: true, prompt_eval_count: "many", eval_count: 2 })],
    ["a finish reason that is a number", line({ message: { role: "assistant", content: "" }, done: true, done_reason: 7 })],
  ];
  for (const [name, bad] of lines) {
    test(name, async () => {
      const server = startFakeServer(() => ({ status: 200, headers: { "Content-Type": "application/x-ndjson" }, pieces: [line({ message: { role: "assistant", content: "Hello" }, done: false }), bad] }));
      const { deltas, error } = await collect(new OllamaModel("ollama:m", "m", server.url, options), request());
      expect(error).toBeInstanceOf(ModelError);
      expect(error!.message).toContain("sent a line that is not a chat reply");
      expect(deltas.every(wellTyped)).toBe(true);
    });
  }
});
