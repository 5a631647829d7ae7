import { expect, test } from "bun:test";
import { showEvent, type EventPanes } from "../../src/tui/event-view.ts";

test("a cache miss is a line in the verdicts pane: the step, reused of expected, and the cause", () => {
  const notes: Array<[string, string | undefined]> = [];
  const panes = { verdicts: { note: (text: string, color?: string) => notes.push([text, color]) }, transcript: {}, meters: {} } as unknown as EventPanes;
  showEvent({ kind: "cache_miss", step: 7, reused: 1, expected: 2973, cause: "the prompt changed at message 4 (compaction)" }, panes, () => 0);
  expect(notes).toEqual([["cache: step 7 reused 1 of 2973 prompt tokens: the prompt changed at message 4 (compaction)", "yellow"]]);
});
