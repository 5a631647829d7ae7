import { expect, test } from "bun:test";
import type { EventOf } from "../../../src/protocol/events.ts";
import type { Widgets } from "../../../src/tui/blessed.ts";
import { layout } from "../../../src/tui/layout.ts";
import { Overlay } from "../../../src/tui/overlay.ts";
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

const call = (step: number, args: string, result: string) => event({ step, id: `c${step}`, arguments: args, result_chars: result.length, result });

/** The screen's text, a row a line. */
const text = (screen: Widgets.Screen) => (screen as unknown as { lines: Array<Array<[number, string]>> }).lines.map((row) => row.map((cell) => cell[1]).join("")).join("\n");
/** Whether a row holding `what` is drawn in reverse video (blessed's attribute flag 8, shifted to bit 18). */
const reversed = (screen: Widgets.Screen, what: string) => {
  const rows = (screen as unknown as { lines: Array<Array<[number, string]>> }).lines;
  const row = rows.find((cells) => cells.map((cell) => cell[1]).join("").includes(what))!;
  const at = row.map((cell) => cell[1]).join("").indexOf(what);
  return ((row[at]![0] >> 18) & 8) !== 0;
};

function setUp() {
  const terminal = fakeTerminal();
  const pane = new VerdictsPane(terminal.screen, layout(160, 45).verdicts);
  pane.add(call(1, '{"path":"a.txt"}', "first result"));
  pane.note("gate: a notice between the calls");
  pane.add(call(2, '{"path":"{red-fg}b.txt{/red-fg}"}', "second result\n\x1b[2Jcleared? {bold}no{/bold}"));
  return { ...terminal, pane };
}

test("with the focus the newest call is selected; up and down choose among the calls, skipping notices", () => {
  const { screen, frame, pane } = setUp();
  expect(pane.selectedResult()).toBeNull(); // no focus, no selection
  pane.box.focus();
  frame(() => pane.draw());
  expect(pane.selectedResult()?.text).toStartWith("second result");
  expect(reversed(screen, "read_file {\"path\":\"{red-fg}b.txt")).toBe(true);
  expect(pane.key("up")).toBe(true);
  frame(() => pane.draw());
  expect(pane.selectedResult()).toMatchObject({ text: "first result", title: "step 1 read_file: allowed, 12 chars as the model received them" });
  expect(reversed(screen, "read_file {\"path\":\"a.txt\"}")).toBe(true);
  expect(reversed(screen, "{red-fg}b.txt")).toBe(false);
  pane.key("up"); // already the first
  expect(pane.selectedResult()?.text).toBe("first result");
  pane.key("end");
  expect(pane.selectedResult()?.text).toStartWith("second result");
  expect(pane.key("x")).toBe(false);
});

test("the model's arguments are text in the pane, never markup", () => {
  const { screen, frame, pane } = setUp();
  frame(() => pane.draw());
  expect(text(screen)).toContain('2 read_file {"path":"{red-fg}b.txt{/red-fg}"} allowed');
});

test("the overlay shows a result whole and escaped: control characters as ^[, braces as braces", () => {
  const { screen, frame, pane } = setUp();
  pane.box.focus();
  const overlay = new Overlay(screen, () => {});
  const result = pane.selectedResult()!;
  frame(() => overlay.show(result.title, result.text));
  const shown = text(screen);
  expect(shown).toContain("step 2 read_file: allowed");
  expect(shown).toContain("^[[2Jcleared? {bold}no{/bold}");
});

test("a sub-run's call is marked as its own (↳ before its step); its result's title says so", () => {
  const { screen, frame } = fakeTerminal();
  const pane = new VerdictsPane(screen, layout(160, 45).verdicts);
  pane.add(event({ step: 2, tool: "search_text", sub_run: "e1" }));
  pane.add(event({ step: 1, tool: "explore" }));
  const written = plain(frame(() => pane.draw()));
  expect(written).toContain("↳2 search_text {");
  expect(written).toContain("1 explore {");
  pane.box.emit("focus");
  pane.key("up");
  expect(pane.selectedResult()?.title).toStartWith("sub-run step 2 search_text: allowed");
});
