import { expect, test } from "bun:test";
import { joinTextDeltas, type ModelDelta } from "../../src/protocol/model.ts";

test("consecutive text deltas of one read join, keeping their count; thinking, tool calls and the end stay apart", () => {
  const deltas: ModelDelta[] = [
    { type: "thinking", text: "hm" },
    { type: "thinking", text: "m" },
    { type: "text", text: "Hel" },
    { type: "text", text: "lo", chunks: 2 },
    { type: "tool_call", index: 0, name: "read_file" },
    { type: "text", text: "!" },
    { type: "done", finish_reason: "stop" },
  ];
  expect(joinTextDeltas(deltas)).toEqual([
    { type: "thinking", text: "hmm", chunks: 2 },
    { type: "text", text: "Hello", chunks: 3 },
    { type: "tool_call", index: 0, name: "read_file" },
    { type: "text", text: "!" },
    { type: "done", finish_reason: "stop" },
  ]);
});
