/**
 * End to end: the model's Markdown on screen (rendered, coloured, never its raw markers, also
 * while a fence is still open mid-stream), and a tool call's whole result opened from the tool
 * verdicts pane. The compiled binary in tmux, streaming from a fake llama.cpp server on 127.0.0.1
 * or a scripted model. Skipped without tmux, or with GLASSBOX_SKIP_E2E=1.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { E2E_SKIPPED, HEIGHT, STATUS, WIDTH, expectCleanExit, useTerminal, type Pane } from "../helpers/terminal.ts";
import { SSE_HEADERS, llamaChunk, llamaCppServer, type Scene } from "../helpers/fake-server.ts";
import { layout } from "../../src/tui/layout.ts";

/** The transcript pane's rows (inside its border), trimmed. */
function transcriptRows(screen: string): string[] {
  const pane = layout(WIDTH, HEIGHT).transcript;
  return screen
    .split("\n")
    .slice(pane.top + 1, pane.top + pane.height - 1)
    .map((row) => [...row].slice(pane.left + 1, pane.left + pane.width - 1).join("").trimEnd());
}

/** A llama.cpp text reply in the captures' shape, four characters a chunk, with a pause after `first`. */
function pausedReply(first: string, pauseMs: number, rest: string): Scene {
  const chunks = (text: string) => (text.match(/[\s\S]{1,4}/g) ?? []).map((piece) => llamaChunk({ content: piece }));
  return {
    status: 200,
    headers: SSE_HEADERS,
    pieces: [llamaChunk({ role: "assistant", content: null }), ...chunks(first), pauseMs, ...chunks(rest), llamaChunk({}, "stop"), "data: [DONE]\n\n"],
  };
}

describe.skipIf(E2E_SKIPPED)("Markdown and tool results on screen", () => {
  const term = useTerminal();
  const withColours = (pane: Pane) => term.tmux("capture-pane", "-p", "-e", "-t", pane.name);

  test("the model's Markdown shows rendered and coloured, without raw markers, also with a fence still open mid-stream", async () => {
    const first = ["## Plan of **attack**", "", "First *read* the `config` file, then:", "", "1. edit **one** file", "2. run the tests", "", "```ts", "const answer: number = 42; // the answer", "function greet(name: string) {", ""].join("\n");
    const rest = ["  return name;", "}", "```", "Done, see [the docs](https://example.com)."].join("\n");
    const server = llamaCppServer(() => pausedReply(first, 4000, rest));
    const { workspace } = term.scripted("markdown", []);
    const pane = term.start("markdown", ["--workspace", workspace, "--model", `llamacpp:${server.url}`]);
    await pane.waitFor("Type a task", "the first frame");
    pane.type("plan it");
    pane.keys("Enter");

    // Paused inside the fence: the code so far is drawn as code, the fence's markers nowhere.
    const open = await pane.waitFor((text) => transcriptRows(text).includes("  function greet(name: string) {"), "the open fence's code", 15_000);
    expect(STATUS(open)).toContain("streaming");
    const rows = transcriptRows(open);
    for (const row of ["Plan of attack", "First read the config file, then:", "1. edit one file", "2. run the tests", "  const answer: number = 42; // the answer"]) expect(rows).toContain(row);
    for (const row of rows) expect(row).not.toMatch(/\*\*|`|^##|^```/);
    // In colour: the heading bold, inline code yellow, the keyword magenta, the comment grey (tmux's 90).
    const coloured = withColours(pane);
    expect(coloured).toMatch(/\x1b\[1m(\x1b\[\d+m)*Plan of /);
    expect(coloured).toMatch(/\x1b\[33mconfig/);
    expect(coloured).toMatch(/\x1b\[35mconst/);
    expect(coloured).toMatch(/\x1b\[(90|37|2)m\/\/ the answer/);

    const done = await pane.waitFor((text) => STATUS(text).includes("stopped: completed"), "the end of the reply", 15_000);
    const end = transcriptRows(done);
    expect(end).toContain("    return name;");
    expect(end).toContain("Done, see the docs (https://example.com).");
    for (const row of end) expect(row).not.toMatch(/\*\*|^##|^```|\]\(/);
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
    server.stop();
  }, 40_000);

  test("Tab to the tool verdicts selects the newest call; ↑ chooses another; Enter opens its whole result, escaped; Esc closes it", async () => {
    const call = (id: string, file: string) => ({ id, name: "read_file", arguments: { path: file } });
    const { workspace, args } = term.scripted("verdicts", [{ content: "", tool_calls: [call("c1", "notes.txt"), call("c2", "other.txt")] }, { content: "Both read." }]);
    const lines = Array.from({ length: 12 }, (_, i) => `notes line ${i + 1}`);
    lines[1] = "{bold}not markup{/bold} and \x1b[31mred\x1b[0m";
    fs.writeFileSync(path.join(workspace, "notes.txt"), lines.join("\n") + "\n");
    fs.writeFileSync(path.join(workspace, "other.txt"), "the other file\n");
    const pane = term.start("verdicts", args);
    await pane.waitFor("Type a task", "the first frame");
    pane.type("read both");
    pane.keys("Enter");
    const done = await pane.waitFor((text) => STATUS(text).includes("stopped: completed"), "the run to end", 15_000);
    // The transcript shows only the start of a long result.
    expect(done).toContain("more lines");
    expect(done).not.toContain("notes line 12");

    pane.keys("Tab"); // the transcript
    pane.keys("Tab"); // the tool verdicts: the newest call selected, in reverse video
    await Bun.sleep(300);
    expect(withColours(pane)).toMatch(/\x1b\[7m[^\n]*read_file [^\n]*other\.txt/);
    pane.keys("Enter");
    const other = await pane.waitFor("as the model received them", "the newest call's result");
    expect(other).toMatch(/step 1 read_file: allowed, \d+ chars as the model received them/);
    expect(other).toMatch(/│ *1 {2}the other file/);
    expect(other).not.toContain("notes line 1 ");
    pane.keys("Escape");
    await pane.waitFor((text) => !text.includes("as the model received them"), "the overlay to close");

    pane.keys("Up");
    pane.keys("Enter");
    const notes = await pane.waitFor("notes line 12", "the whole of the first call's result");
    expect(notes).toContain("as the model received them");
    // Escaped: the escape sequence shown as text, the braces as braces (no colour, no bold).
    expect(notes).toContain("{bold}not markup{/bold} and ^[[31mred^[[0m");
    pane.keys("Escape");
    await pane.waitFor((text) => !text.includes("notes line 12"), "the overlay to close");
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 40_000);
});
