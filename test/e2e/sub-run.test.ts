/**
 * End to end on the compiled binary in tmux: a sub-run (explore) is one folded entry in the
 * transcript whose header moves while it runs, as the meters do; its calls are in the verdicts pane
 * marked ↳ as its own; Tab then Enter in the transcript unfolds its steps and Enter folds them
 * again; Esc stops the sub-run and the run with it.
 */
import { describe, expect, test } from "bun:test";
import { E2E_SKIPPED, STATUS, useTerminal } from "../helpers/terminal.ts";

const QUESTION = "Where is the version compared?";
const explore = { content: "I will ask a helper.", tool_calls: [{ id: "e1", name: "explore", arguments: { question: QUESTION } }] };
const search = { content: "", tool_calls: [{ id: "s1", name: "search_text", arguments: { pattern: "export function" } }] };
const pause = (seconds: number) => ({ content: "", tool_calls: [{ id: "s2", name: "run_command", arguments: { argv: ["sleep", String(seconds)] } }] });
/** The sub-run's command runs read-only under this rule (bwrap or Landlock): the pause while its entry and meters are read. */
const ALLOW_SLEEP = ["--allow", "run_command:ro:sleep *"];

/** The meters pane's figure for `label` (`steps    3 / 40`). */
const meter = (screen: string, label: string) => Number(screen.match(new RegExp(`│${label} +(?:[█░]+ )?(\\d+)`))?.[1] ?? NaN);

describe.skipIf(E2E_SKIPPED)("a sub-run in the TUI, in a real terminal", () => {
  const { start, scripted } = useTerminal();

  test("one folded entry, live while it runs; its calls marked in the verdicts; Enter in the transcript unfolds and folds it", async () => {
    const { args } = scripted("sub-run", [explore, search, pause(3), { content: "", tool_calls: [{ id: "s3", name: "finish", arguments: { summary: "src/version.ts compares versions (compare)." } }] }, { content: "Found it: src/version.ts." }]);
    const pane = start("sub-run", [...args, ...ALLOW_SLEEP]);
    await pane.waitFor("Type a task", "the first frame");
    pane.type("find the comparison");
    pane.keys("Enter");
    const running = await pane.waitFor((text) => text.includes("sub-run running, 2 step(s), 1 call(s)"), "the sub-run's entry while its command sleeps");
    expect(running).toContain(`[+] explore: ${QUESTION} · sub-run running`);
    // Its steps are not in the transcript, only its entry; its calls are in the verdicts, marked.
    expect(running).not.toContain("▸ search_text");
    expect(running).toMatch(/↳2 search_text \{"pattern":"export function"\}\s+allowed/);
    // The run's meters count the sub-run's steps and calls as they come (the explore call's own once it is answered).
    expect(meter(running, "steps")).toBe(3);
    expect(meter(running, "calls")).toBe(1);
    expect(STATUS(running)).not.toContain("stopped");

    const ended = await pane.waitFor("stopped: completed", "the run's end");
    expect(ended).toContain(`[+] explore: ${QUESTION} · sub-run completed, 3 step(s), 3 call(s)`);
    expect(ended).toContain("▸ explore {\"question\":\"Where is the version compared?\"}");
    expect(ended).toContain("allowed: src/version.ts compares versions (compare).");
    expect(ended).toMatch(/↳3 run_command \{"argv":\["sleep","3"\]\}\s+allowed/);
    expect(ended).toMatch(/↳4 finish/);
    expect(ended).toMatch(/│1 explore/);
    expect(meter(ended, "steps")).toBe(5);
    expect(meter(ended, "calls")).toBe(4);

    pane.keys("Tab");
    await pane.waitFor((text) => text.includes("┌─ transcript") || /transcript/.test(text), "the transcript's focus");
    pane.keys("Enter");
    const open = await pane.waitFor(`[-] explore: ${QUESTION}`, "the entry unfolded");
    expect(open).toContain("│ ▸ search_text {\"pattern\":\"export function\"}");
    expect(open).toContain('│ ▸ run_command {"argv":["sleep","3"]}');
    expect(open).toContain("│ ■ completed — the model called finish");
    pane.keys("Enter");
    const closed = await pane.waitFor(`[+] explore: ${QUESTION}`, "the entry folded again");
    expect(closed).not.toContain("│ ▸ search_text");
    pane.close();
  }, 90_000);

  test("Esc while the sub-run works stops it and the run: both interrupted", async () => {
    const { args } = scripted("sub-run-esc", [explore, pause(60), { content: "never" }, { content: "never" }]);
    const pane = start("sub-run-esc", [...args, ...ALLOW_SLEEP]);
    await pane.waitFor("Type a task", "the first frame");
    pane.type("find the comparison");
    pane.keys("Enter");
    await pane.waitFor("sub-run running, 1 step(s), 0 call(s)", "the sub-run's command under way");
    pane.keys("Escape");
    const stopped = await pane.waitFor("stopped: interrupted", "the run stopped by Esc", 15_000);
    expect(stopped).toContain(`[+] explore: ${QUESTION} · sub-run interrupted`);
    expect(stopped).toContain("The sub-run stopped before it answered: interrupted");
    pane.close();
  }, 60_000);
});
