/**
 * End to end on the compiled binary in tmux: `u` undoes the last run from the TUI, `?` and F1
 * open the help from the input line, the approval leaves the budgets and the verdicts in view,
 * the context meter has a bar, and the meters say their budget is per run.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { E2E_SKIPPED, STATUS, expectCleanExit, useTerminal } from "../helpers/terminal.ts";
import { DEFAULT_LIMITS } from "../../src/protocol/limits.ts";

/** The input line's text: the row inside the message box. */
const INPUT = (text: string) => {
  const rows = text.split("\n");
  const top = rows.findIndex((row) => row.startsWith("┌─ message"));
  return rows[top + 1]?.replace(/^│|│$/g, "").trimEnd() ?? "";
};

/** A meter's row: its bar and `value/limit`. */
const meter = (label: string, value: number, limit: number) => new RegExp(`│${label} +[█░]+ ${value}/${limit}│`);

/** The undo question, whole: its frame, its plan and its keys (the last line drawn). */
const QUESTION = (text: string) => text.includes("┌─ undo ") && text.includes("y undo these changes   n (or any other key) keep them");

describe.skipIf(E2E_SKIPPED)("undo and the screen fixes, in a real terminal", () => {
  const { start, scripted } = useTerminal();

  const CHANGES = [
    { content: "Creating the changelog.", tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "docs/changes.md", content: "parseVersion returns numbers\n" } }] },
    { content: "", tool_calls: [{ id: "e1", name: "edit_file", arguments: { path: "README.md", old: "# semver-lite", new: "# semver-lite (fixed)" } }] },
    { content: "Both changes are made." },
  ];

  test("u on an empty input line lists the last run's files and asks; n keeps them, y restores them, and a second u says it was undone", async () => {
    const { workspace, args } = scripted("undo", CHANGES);
    const readme = fs.readFileSync(path.join(workspace, "README.md"), "utf8");
    const pane = start("undo", args);
    await pane.waitFor("Type a task", "the first frame");
    pane.type("make the changes");
    pane.keys("Enter");
    await pane.waitFor("write_file on docs/changes.md", "the first approval");
    pane.keys("y");
    await pane.waitFor("edit_file on README.md", "the second approval");
    pane.keys("y");
    const ended = await pane.waitFor("stopped: completed", "the run to end");
    expect(ended).toContain("│this run changed 2 file(s): u on an empty input line undoes them");
    expect(fs.readFileSync(path.join(workspace, "README.md"), "utf8")).toContain("# semver-lite (fixed)");

    // With text on the line, u is a letter like any other.
    pane.type("xu");
    await pane.waitFor((text) => INPUT(text) === "xu", "u typed into the input line");
    pane.keys("BSpace", "BSpace");
    await pane.waitFor((text) => INPUT(text) === "", "the input line empty again");

    pane.keys("u");
    const asked = await pane.waitFor(QUESTION, "the undo question");
    expect(asked).toMatch(/│ Undo run \d{8}T\d{6}-[0-9a-f]{8}\? Newest change first:/);
    const question = asked.split("\n");
    expect(question.findIndex((row) => row.includes("would restore README.md"))).toBeLessThan(question.findIndex((row) => row.includes("would remove docs/changes.md, which the run created")));
    expect(asked).toContain("y undo these changes   n (or any other key) keep them");
    pane.keys("n");
    await pane.waitFor("│nothing undone", "the answer no");
    expect(fs.readFileSync(path.join(workspace, "docs/changes.md"), "utf8")).toBe("parseVersion returns numbers\n");
    // Someone typing "use yarn" on the empty line opens the question with the u: the s answers no,
    // so the y further on cannot undo anything. (Keys one at a time, as a person types them.)
    for (const key of "use yarn") {
      pane.type(key);
      if (key === "u") await pane.waitFor(QUESTION, "the question opened by the u");
      if (key === "s") await pane.waitFor((text) => !text.includes("┌─ undo "), "the s to answer no");
    }
    await pane.waitFor((text) => INPUT(text) === "e yarn", "the rest typed into the input line");
    expect(fs.readFileSync(path.join(workspace, "docs/changes.md"), "utf8")).toBe("parseVersion returns numbers\n");
    for (let i = 0; i < 6; i++) pane.keys("BSpace");
    await pane.waitFor((text) => INPUT(text) === "", "the input line empty again");

    pane.keys("u");
    await pane.waitFor(QUESTION, "the undo question again");
    pane.keys("y");
    const undone = await pane.waitFor("│log: .glassbox/undo/", "the undo's result");
    expect(undone).toMatch(/│undo of run \d{8}T\d{6}-[0-9a-f]{8}, newest change first:/);
    expect(undone).toContain("│  restored README.md");
    expect(undone).toContain("│  removed docs/changes.md, which the run created");
    expect(fs.readFileSync(path.join(workspace, "README.md"), "utf8")).toBe(readme);
    expect(fs.existsSync(path.join(workspace, "docs/changes.md"))).toBe(false);
    expect(STATUS(undone)).not.toContain("waiting for approval");

    pane.keys("u");
    await pane.waitFor(/│nothing to undo: the last run that changed files \(\S+\) was already undone/, "the second undo");
    // Typing works again, each key once.
    pane.type("next");
    await pane.waitFor((text) => INPUT(text) === "next", "the input line to take text again");
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 30_000);

  test("u skips and names a file edited since glassbox wrote it", async () => {
    const { workspace, args } = scripted("undo-edited", CHANGES);
    const pane = start("undo-edited", [...args, "--allow", "write_file", "--allow", "edit_file"]);
    await pane.waitFor("Type a task", "the first frame");
    pane.type("make the changes");
    pane.keys("Enter");
    await pane.waitFor("stopped: completed", "the run to end");
    fs.writeFileSync(path.join(workspace, "docs/changes.md"), "my own words\n");
    pane.keys("u");
    const asked = await pane.waitFor(QUESTION, "the undo question");
    expect(asked).toContain("would skip docs/changes.md: it was changed since glassbox wrote it");
    pane.keys("y");
    const done = await pane.waitFor("│log: .glassbox/undo/", "the undo's result");
    expect(done).toContain("│  skipped docs/changes.md: it was changed since glassbox wrote it");
    expect(done).toContain("│  restored README.md");
    expect(fs.readFileSync(path.join(workspace, "docs/changes.md"), "utf8")).toBe("my own words\n");
    pane.close();
  }, 30_000);

  test("? on an empty input line and F1 anywhere open the help; with text on the line ? is typed; typing resumes after", async () => {
    const { args } = scripted("help-keys", [{ content: "unused" }]);
    const pane = start("help-keys", args);
    const first = await pane.waitFor("Type a task", "the first frame");
    expect(first).toContain("? shows the keys");
    pane.keys("?");
    const help = await pane.waitFor("help — Esc closes", "the help from the empty input line");
    expect(help).toContain("? / F1       this help");
    pane.keys("Escape");
    await pane.waitFor((text) => !text.includes("help — Esc closes"), "the help to close");
    pane.type("why?");
    await pane.waitFor((text) => INPUT(text) === "why?", "the question mark typed");
    pane.keys("F1");
    await pane.waitFor("help — Esc closes", "the help from F1 while typing");
    pane.keys("Escape");
    await pane.waitFor((text) => !text.includes("help — Esc closes"), "the help to close again");
    pane.type(" ok");
    const typed = await pane.waitFor((text) => INPUT(text) === "why? ok", "typing to resume with the text kept");
    expect(typed).not.toContain("help — Esc closes");
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 20_000);

  test("while asking, the budgets and the verdicts stay in view; the context meter has a bar; each message gets a fresh budget and the meters say so", async () => {
    const { args } = scripted("in-view", [
      { content: "", tool_calls: [{ id: "r1", name: "read_file", arguments: { path: "NOTES.md" } }] },
      { content: "", tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "docs/changes.md", content: "x\n" } }] },
      { content: "First done." },
      { content: "Second done." },
    ]);
    const pane = start("in-view", args);
    const first = await pane.waitFor("Type a task", "the first frame");
    expect(first.split("\n")[0]).toMatch(/┌─ budgets per run ─+┐$/);
    pane.type("first");
    pane.keys("Enter");
    const modal = await pane.waitFor("approval needed", "the approval");
    const rows = modal.split("\n");
    // The modal sits over the transcript; the side column keeps the meters and the verdicts.
    expect(rows[0]).toMatch(/^┌─ approval needed ─+┐┌─ budgets per run · run 1 ─+┐$/);
    expect(modal).toMatch(meter("steps", 2, DEFAULT_LIMITS.max_steps));
    expect(modal).toMatch(meter("calls", 1, DEFAULT_LIMITS.max_tool_calls)); // the call being asked about is not counted yet
    expect(modal).toMatch(/┌─ tool verdicts ─+┐/);
    expect(modal).toMatch(/│1 read_file \{"path":"NOTES\.md"\} allowed +│/);
    // The context meter: fill against the window (num_ctx 8192 for a scripted model), with a bar.
    expect(modal).toMatch(/│context +█+░+ \d+(\.\d)?k?\/8\.2k│/);
    expect(STATUS(modal)).toContain("waiting for approval");
    // F1 works while asking too; Esc closes the help, not the question.
    pane.keys("F1");
    await pane.waitFor("help — Esc closes", "the help over the approval");
    pane.keys("Escape");
    const back = await pane.waitFor((text) => !text.includes("help — Esc closes"), "the help to close");
    expect(back).toContain("approval needed");
    pane.keys("y");
    const done = await pane.waitFor("stopped: completed", "the first run to end");
    expect(done).toMatch(meter("steps", 3, DEFAULT_LIMITS.max_steps));

    pane.type("second");
    pane.keys("Enter");
    const second = await pane.waitFor("Second done.", "the second run");
    const again = await pane.waitFor((text) => meter("steps", 1, DEFAULT_LIMITS.max_steps).test(text), "the second run's own budget");
    expect(second.split("\n")[0]).toMatch(/┌─ budgets per run · run 2 ─+┐$/);
    expect(again).toMatch(meter("calls", 0, DEFAULT_LIMITS.max_tool_calls));
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 20_000);
});
