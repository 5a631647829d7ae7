import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { clip } from "../../src/core/clip.ts";
import { DEFAULT_LIMITS } from "../../src/protocol/limits.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { makeWorkspace } from "../helpers/workspace.ts";
import { call, runScripted } from "../helpers/run.ts";

/** A text whose every position is recognisable: a head marker, numbered middle, a tail marker. */
function recognisable(length: number): string {
  const head = "HEAD>";
  const tail = "<TAIL";
  let middle = "";
  for (let i = 0; middle.length < length - head.length - tail.length; i++) middle += `${i},`;
  return head + middle.slice(0, length - head.length - tail.length) + tail;
}

const MARKER = /\n\[… (\d+) characters cut …\]\n/;

describe("clip", () => {
  const rows: Array<[length: number, max: number]> = [
    [50_000, 2000],
    [2001, 2000],
    [2000, 2000],
    [10, 2000],
    [0, 2000],
    [1_000_000, 200],
    [201, 200],
    [99_999, 12_345],
  ];
  for (const [length, max] of rows) {
    test(`${length} characters at max ${max}`, () => {
      const text = recognisable(length).slice(0, length);
      const out = clip(text, max);
      expect(out.length).toBeLessThanOrEqual(max);
      if (length <= max) {
        expect(out).toBe(text);
        return;
      }
      const match = MARKER.exec(out);
      expect(match).not.toBeNull();
      const [head, tail] = out.split(match![0]);
      // Head and tail are the real start and end, and the cut count makes up the difference exactly.
      expect(text.startsWith(head!)).toBe(true);
      expect(text.endsWith(tail!)).toBe(true);
      expect(head!.length + Number(match![1]) + tail!.length).toBe(length);
      // Both ends get a fair share.
      expect(Math.abs(head!.length - tail!.length)).toBeLessThanOrEqual(1);
      expect(head!.length).toBeGreaterThan(max / 2 - 50);
    });
  }
});

test("a 50,000-character result reaches the model at ≤ the default max_result_chars, head and tail kept", async () => {
  const ws = makeWorkspace();
  const big = recognisable(50_000);
  const tool = defineTool({
    name: "big",
    description: "Returns a lot.",
    schema: z.object({}).strict(),
    needsApproval: false,
    async plan() {
      return { execute: async () => big };
    },
  });
  const run = await runScripted([call("big"), { content: "ok" }], { workspace: ws.root, tools: [tool] });
  const content = run.model.requests[1]!.messages.find((m) => m.role === "tool")!.content;
  expect(content.length).toBeLessThanOrEqual(DEFAULT_LIMITS.max_result_chars);
  expect(content.length).toBeGreaterThan(DEFAULT_LIMITS.max_result_chars - 100);
  expect(content).toStartWith("HEAD>0,1,2,");
  expect(content).toEndWith("<TAIL");
  const cut = Number(MARKER.exec(content)![1]);
  expect(cut).toBeGreaterThan(50_000 - DEFAULT_LIMITS.max_result_chars);
  expect(cut).toBeLessThan(50_000 - DEFAULT_LIMITS.max_result_chars + 200);
  expect(run.calls[0]!.result_chars).toBe(content.length);
});
