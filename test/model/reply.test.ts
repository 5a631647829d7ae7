import { expect, test } from "bun:test";
import { ReplyBuilder } from "../../src/model/reply.ts";

test("a reply streamed in thousands of pieces comes back whole, with its tool calls in order", () => {
  const builder = new ReplyBuilder();
  for (let i = 0; i < 3000; i++) builder.add({ type: "text", text: `${i % 10}` });
  builder.add({ type: "thinking", text: "plan" });
  builder.add({ type: "tool_call", index: 1, id: "b", name: "read_file", arguments: '{"path":' });
  builder.add({ type: "tool_call", index: 0, id: "a", name: "list_files", arguments: {} });
  builder.add({ type: "tool_call", index: 1, arguments: '"x"}' });
  builder.add({ type: "done", finish_reason: "tool_calls" });
  const reply = builder.result(1);
  expect(reply.content).toBe("0123456789".repeat(300));
  expect(reply.thinking).toBe("plan");
  expect(reply.tool_calls).toEqual([
    { id: "a", name: "list_files", arguments: {} },
    { id: "b", name: "read_file", arguments: '{"path":"x"}' },
  ]);
  expect(reply.finish_reason).toBe("tool_calls");
});

test("the builder hands its text over and keeps none, so a finished reply lives only where it was taken", () => {
  const builder = new ReplyBuilder();
  for (let i = 0; i < 2000; i++) builder.add({ type: "text", text: "word " });
  expect(builder.result(1).content.length).toBe(10_000);
  // A builder held by a finished stream (the wire log's) must not keep a second copy alive.
  expect(builder.result(1).content).toBe("");
});

test("calls recovered from the text become calls with ids; the text keeps only the prose before them", () => {
  const builder = new ReplyBuilder();
  builder.add({ type: "text", text: 'Reading it.\n{"name": "read_file", ' });
  builder.add({ type: "text", text: '"arguments": {"path": "a.ts"}}' });
  builder.add({ type: "done", finish_reason: "stop" });
  builder.add({ type: "text_calls", form: "json", prose: "Reading it.", calls: [{ name: "read_file", arguments: { path: "a.ts" } }] });
  const reply = builder.result(3);
  expect(reply.content).toBe("Reading it.");
  expect(reply.tool_calls).toEqual([{ id: "s3c1", name: "read_file", arguments: { path: "a.ts" }, from_text: true }]);
});
