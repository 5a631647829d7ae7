import { expect, test } from "bun:test";
import type { EventOf } from "../../../src/core/events.ts";
import { layout } from "../../../src/tui/layout.ts";
import { VerdictsPane } from "../../../src/tui/panes/verdicts-pane.ts";
import { fakeTerminal } from "../../helpers/fake-terminal.ts";

const plain = (written: string) => written.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");

const event = (extra: Partial<EventOf<"tool_call">>): EventOf<"tool_call"> => ({
  kind: "tool_call",
  step: 1,
  id: "c1",
  tool: "read_file",
  arguments: '{"path":"README.md"}',
  decision: "allowed",
  reason: "",
  result_chars: 3,
  result: "abc",
  ...extra,
});

test("a call recovered from the reply's text is marked (text) in the verdicts pane; a protocol call is not", () => {
  const { screen, frame } = fakeTerminal();
  const pane = new VerdictsPane(screen, layout(160, 45).verdicts);
  pane.add(event({ step: 1, from_text: true }));
  pane.add(event({ step: 2, tool: "list_files" }));
  const written = plain(frame(() => pane.draw()));
  expect(written).toContain("1 read_file (text)");
  expect(written).toContain("2 list_files {");
  expect(written).not.toContain("list_files (text)");
});
