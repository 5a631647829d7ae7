/**
 * End to end: the demo, approvals, overlays, terminals and signals, on the compiled binary in a
 * real terminal (test/helpers/terminal.ts). Skipped without tmux, or with GLASSBOX_SKIP_E2E=1.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import demoScript from "../../src/model/demo-script.json";
import { DEFAULT_LIMITS } from "../../src/protocol/limits.ts";
import { STATUS, WIDTH, E2E_SKIPPED, expectCleanExit, rows, tokens, useTerminal } from "../helpers/terminal.ts";

const root = path.resolve(import.meta.dir, "../..");

describe.skipIf(E2E_SKIPPED)("the compiled binary in a real terminal", () => {
  const term = useTerminal();
  const { start, scripted } = term;

  /** The toy workspace's version.ts, as shipped (the demo's edit turns `.split(".")` into `.split(".").map(Number)`). */
  const ORIGINAL_VERSION_TS = fs.readFileSync(path.join(root, "workspace/src/version.ts"), "utf8");

  const seenDemos = new Set<string>();

  /**
   * The demo's fresh temp workspace: the one new glassbox-demo-* folder in our TMPDIR. The screen
   * shows its path too (the transcript's first line, the status line).
   */
  function demoWorkspace(screen: string): string {
    const fresh = fs.readdirSync(term.tmp).filter((name) => name.startsWith("glassbox-demo-") && !seenDemos.has(name));
    expect(fresh).toHaveLength(1);
    seenDemos.add(fresh[0]!);
    expect(screen).toContain(`${fresh[0]}/workspace`);
    return path.join(term.tmp, fresh[0]!, "workspace");
  }

  test("the demo reaches its approval with the diff; y applies the edit and the run completes", async () => {
    const pane = start("demo-yes", ["--demo"]);
    const first = await pane.waitFor("glassbox-demo-", "the first frame");
    const workspace = demoWorkspace(first);
    expect(first).toMatch(/│00-base builtin [0-9a-f]{16} \d+c/); // the layers pane lists the base layer

    const modal = await pane.waitFor("approval needed", "the approval modal", 15_000);
    expect(modal).toContain("edit_file on src/version.ts");
    expect(modal).toMatch(/│-  return text\.trim\(\)\.replace\(\/\^v\/, ""\)\.split\("\."\);\s+│/);
    expect(modal).toMatch(/│\+  return text\.trim\(\)\.replace\(\/\^v\/, ""\)\.split\("\."\)\.map\(Number\);\s+│/);
    expect(modal).toContain("y approve");
    expect(STATUS(modal)).toContain("waiting for approval");
    // Nothing is written before the person says yes.
    expect(fs.readFileSync(path.join(workspace, "src/version.ts"), "utf8")).toBe(ORIGINAL_VERSION_TS);

    pane.keys("y");
    const done = await pane.waitFor("stopped: completed", "the run to complete", 15_000);
    expect(fs.readFileSync(path.join(workspace, "src/version.ts"), "utf8")).toContain('.split(".").map(Number);');
    expect(done).not.toContain("approval needed");
    expect(done).toMatch(/│6 edit_file \{"path":"src\/version\.ts".* allowed/); // the verdicts pane
    expect(done).toMatch(/│7 run_check \{"name":"tests"\} allowed/);
    expect(done).toContain("Check tests passed");
    expect(STATUS(done)).toContain("stopped: completed");
    // The budgets moved: tokens counted from every reply, steps and calls at their final figures.
    expect(tokens(done)).toBeGreaterThan(1000);
    // The y path takes 8 of the script's replies (the last one answers a refused finish); the gate allows this finish.
    expect(done).toMatch(new RegExp(`│steps +█+░* 8/${DEFAULT_LIMITS.max_steps}│`));
    expect(done).toContain("gate: finish allowed");
    pane.close();
  }, 30_000);

  test("n leaves the file unchanged, the verdict says denied, and the gate refuses the model's finish", async () => {
    const pane = start("demo-no", ["--demo"]);
    const workspace = demoWorkspace(await pane.waitFor("glassbox-demo-", "the first frame"));
    // The meters move while the model runs: tokens count up before the run ends.
    const live = await pane.waitFor((text) => tokens(text) > 0, "the tokens meter to move", 15_000);
    expect(live).not.toContain("stopped:");
    await pane.waitFor("approval needed", "the approval modal", 15_000);
    pane.keys("n");
    const verdict = await pane.waitFor(/│6 edit_file .* denied/, "the denied verdict");
    expect(verdict).not.toContain("approval needed");
    const done = await pane.waitFor(/stopped: \w+/, "the run to end", 15_000);
    // The demo sets verify: "tests", and the tests still fail: the model's "the tests pass" is refused.
    expect(done).toMatch(/│gate: finish refused: finish needs the tests check to pass/);
    expect(done).toMatch(/│8 finish .* refused/);
    expect(done).not.toContain("gate: finish allowed");
    expect(done).toContain("The gate is right to refuse: the tests still fail");
    expect(STATUS(done)).toContain("stopped: completed");
    expect(fs.readFileSync(path.join(workspace, "src/version.ts"), "utf8")).toBe(ORIGINAL_VERSION_TS);
    pane.close();
  }, 30_000);

  test("Esc interrupts the model while it streams", async () => {
    const pane = start("demo-esc", ["--demo"]);
    // Polled fast: the first reply streams for about 175 ms.
    const streaming = await pane.waitFor("Let me", "the first reply to start streaming", 8000, 10);
    pane.keys("Escape");
    expect(STATUS(streaming)).toContain("streaming");
    const stopped = await pane.waitFor("stopped: interrupted", "the interruption", 3000);
    expect(STATUS(stopped)).toContain("stopped: interrupted");
    expect(stopped).not.toContain("approval needed");
    // Cut mid-reply: the transcript row above the stop line is a strict beginning of a scripted reply.
    const transcript = stopped.split("\n").map((line) => line.match(/^│(.*?)│/)?.[1]?.trim() ?? "");
    const partial = transcript[transcript.findIndex((row) => row.startsWith("■ stopped: interrupted")) - 1] ?? "";
    const replies = demoScript.replies.map((reply) => reply.content);
    expect(partial.length).toBeGreaterThan(0);
    expect(replies.some((reply) => reply.startsWith(partial) && reply.length > partial.length)).toBe(true);
    // Still alive and usable: quitting is immediate now that nothing runs.
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 15_000);

  test("Ctrl-C during a run asks first; a second Ctrl-C quits to a clean shell", async () => {
    const pane = start("demo-ctrl-c", ["--demo"]);
    await pane.waitFor((text) => STATUS(text).includes("streaming"), "the run to be streaming");
    pane.keys("C-c");
    const asked = await pane.waitFor("Ctrl-C again quits", "the question");
    expect(asked).not.toContain("EXITED");
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 15_000);

  test("? shows the help, p the system prompt with its layer boundaries; any key closes them; Ctrl-C leaves a clean shell", async () => {
    const { args } = scripted("overlays", [{ content: "unused" }]);
    const pane = start("overlays", args);
    await pane.waitFor("Type a task", "the first frame");
    pane.keys("?"); // on an empty input line, ? is the help key
    const help = await pane.waitFor("help — Esc closes", "the help overlay");
    expect(help).toContain("y / n / a    answer an approval");
    pane.keys("x");
    await pane.waitFor((text) => !text.includes("help — Esc closes"), "the help to close");
    // Typing resumed: Tab leaves the input line, so letters become commands. (Not Esc: an Esc and
    // the next key read in one chunk are one meta key to blessed, and both are lost.)
    pane.keys("Tab");
    pane.keys("p");
    const prompt = await pane.waitFor("system prompt — Esc closes", "the prompt overlay");
    expect(prompt).toMatch(/──── layer 00-base \(builtin, [0-9a-f]{16}, \d+ chars\) ────/);
    pane.keys("Escape");
    const closed = await pane.waitFor((text) => !text.includes("system prompt — Esc closes"), "the prompt to close");
    expect(closed).toContain("Type a task");
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 15_000);

  for (const term of ["screen-256color", undefined]) {
    test(`draws with TERM=${term ?? "(unset)"}: borders line up around wide characters, markup stays text`, async () => {
      const { args } = scripted(`term-${term ?? "unset"}`, [{ content: "幅広い文字 ok {bold}not markup{/bold}" }]);
      const pane = start(`term-${term ?? "unset"}`, args, { TERM: term });
      await pane.waitFor("Type a task", "the first frame");
      pane.type("hello");
      pane.keys("Enter");
      const text = await pane.waitFor("stopped: completed", "the reply");
      const row = text.split("\n").find((line) => line.startsWith("│幅広い文字"));
      expect(row).toMatch(/^│幅広い文字 ok \{bold\}not markup\{\/bold\} +││.*│$/);
      expect(Bun.stringWidth(row!)).toBe(WIDTH); // each wide character took two cells, the borders line up
      expect(text.split("\n")[0]).toMatch(/^┌─ transcript ─+┐┌─ budgets per run · run 1 ─+┐$/);
      pane.keys("C-c");
      await expectCleanExit(pane, 0);
      pane.close();
    }, 10_000);
  }

  test("TERM=dumb says why in one line and exits 1", async () => {
    const pane = start("dumb", ["--demo"], { TERM: "dumb" });
    const text = await pane.waitFor(/^tty /m, "the exit");
    expect(rows(text)).toEqual([
      "glassbox: TERM=dumb has no cursor addressing; run glassbox in a terminal such as xterm-256color",
      "EXITED 1",
      "tty isig icanon echo",
    ]);
    pane.close();
  }, 10_000);

  test("without a terminal it points to glassbox run", () => {
    const result = Bun.spawnSync([term.binary, "--demo"], { cwd: term.dir, env: { PATH: "/usr/bin:/bin", TMPDIR: term.tmp, TERM: "xterm-256color" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    expect(result.exitCode).toBe(1);
    expect(result.stderr.toString()).toMatch(/^glassbox: standard output is not a terminal; .*glassbox run "TASK"/);
  });

  test("with no model server the TUI still opens, says how to fix it, and Enter retries without dying", async () => {
    const { workspace } = scripted("no-server", []);
    const pane = start("no-server", ["--workspace", workspace, "--model", "llamacpp:http://127.0.0.1:9"]);
    const fix = "start llama-server or ollama serve, check --model, or try glassbox --demo";
    const opened = await pane.waitFor((text) => STATUS(text).includes(fix), "the no-server notice in the status line");
    expect(STATUS(opened)).toContain("no model server answers for llamacpp:http://127.0.0.1:9");
    expect(STATUS(opened)).toContain("idle");
    expect(opened).toContain("│no model server answers for llamacpp:http://127.0.0.1:9: start llama-server"); // and in the transcript
    pane.type("fix the failing tests");
    pane.keys("Enter");
    const failed = await pane.waitFor("stopped: model_error", "the retry to fail");
    expect(failed).toContain("› fix the failing tests");
    expect(failed).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9\S*: connection refused/);
    expect(STATUS(failed)).toContain("stopped: model_error");
    expect(STATUS(failed)).toContain(`${fix}; Enter retries`);
    // Alive, with no stack trace: it answers keys and quits cleanly.
    expect(failed).not.toMatch(/EXITED|\bat \S+:\d+|TypeError|Error:/);
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 15_000);

  test("drifted prompt layers: the layers pane marks them, the first run shows the findings and waits; the plan pane shows the todo list", async () => {
    const { workspace, args } = scripted("drift", [
      { content: "", tool_calls: [{ id: "t1", name: "update_todo", arguments: { items: [{ text: "read the parser", status: "done" }, { text: "fix the parser", status: "in_progress" }] } }] },
      { content: "planned" },
    ]);
    fs.appendFileSync(path.join(workspace, "AGENTS.md"), "\nOne more rule.\n");
    const pane = start("drift", args);
    const opened = await pane.waitFor("prompt layers", "the layers pane");
    expect(opened).toMatch(/00-base builtin [0-9a-f]{16} \d+c locked/);
    expect(opened).toMatch(/AGENTS\.md workspace [0-9a-f]{16} \d+c changed/);
    expect(opened).toContain("(no plan yet");
    pane.type("make a plan");
    pane.keys("Enter");
    const asked = await pane.waitFor("Start the run anyway?", "the drift question");
    expect(asked).toMatch(/CHANGED AGENTS\.md \(workspace\) [0-9a-f]{16} -> [0-9a-f]{16}/);
    expect(asked).not.toContain("stopped:");
    pane.keys("y");
    const done = await pane.waitFor("stopped: completed", "the run after y");
    expect(done).toContain("[x] read the parser");
    expect(done).toContain("[~] fix the parser");
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 15_000);

  test("n on the drift question starts nothing", async () => {
    const { workspace, args } = scripted("drift-no", [{ content: "never" }]);
    fs.appendFileSync(path.join(workspace, "AGENTS.md"), "\nDrift.\n");
    const pane = start("drift-no", args);
    await pane.waitFor("prompt layers", "the layers pane");
    pane.type("go");
    pane.keys("Enter");
    await pane.waitFor("Start the run anyway?", "the drift question");
    pane.keys("n");
    const refused = await pane.waitFor("run not started", "the refusal note");
    expect(refused).not.toContain("stopped:");
    expect(fs.existsSync(path.join(workspace, ".glassbox", "runs"))).toBe(false);
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 15_000);

  test("SIGTERM restores the terminal and exits 143", async () => {
    const { args } = scripted("sigterm", [{ content: "unused" }]);
    const pane = start("sigterm", args);
    await pane.waitFor("Type a task", "the first frame");
    process.kill(term.glassboxPid(pane), "SIGTERM");
    await expectCleanExit(pane, 143);
    pane.close();
  }, 10_000);

  test("escape sequences, bidi overrides and markup from a file and the model are shown escaped", async () => {
    const nasty = [
      "clear:\u001b[2J\u001b[H here",
      "title:\u001b]0;pwned-title\u0007 {red-fg}RED{/red-fg} end",
      "bidi:\u202eevil\u202c end",
      "",
    ].join("\n");
    const { workspace, args } = scripted(
      "untrusted",
      [
        { content: "Reading \u001b[31mthe notes\u001b[0m {bold}now{/bold}.", tool_calls: [{ id: "u1", name: "read_file", arguments: { path: "NOTES.md" } }] },
        { content: "", tool_calls: [{ id: "u2", name: "edit_file", arguments: { path: "NOTES.md", old: "{red-fg}RED", new: "\u001b[2J\u001b]52;c;cHduZWQ=\u0007{/bold}" } }] },
        { content: "Done." },
      ],
      nasty,
    );
    const pane = start("untrusted", args);
    await pane.waitFor("Type a task", "the first frame");
    const titleBefore = pane.format("#{pane_title}");
    pane.type("read the notes");
    pane.keys("Enter");

    const modal = await pane.waitFor("approval needed", "the approval modal");
    // The approval: what is asked and the keys are intact, the file's lines in the diff escaped.
    expect(modal).toContain("edit_file on NOTES.md");
    expect(modal).toMatch(/│ clear:\^\[\[2J\^\[\[H here\s+│/);
    expect(modal).toMatch(/│-title:\^\[\]0;pwned-title\^G \{red-fg\}RED\{\/red-fg\} end\s+│/);
    expect(modal).toMatch(/│\+title:\^\[\]0;pwned-title\^G \^\[\[2J\^\[\]52;c;cHduZWQ=\^G\{\/bold\}\{\/red-fg\} end\s+│/);
    expect(modal).toMatch(/│ bidi:<U\+202E>evil<U\+202C> end\s+│/);
    expect(modal).toContain("y approve   n deny   a always allow edit_file this session");
    pane.keys("n");
    const done = await pane.waitFor("stopped: completed", "the run to end");
    // The model's text: escapes visible, markup literal.
    expect(done).toContain("Reading ^[[31mthe notes^[[0m {bold}now{/bold}.");
    // The file, in the read_file result: shown, and nothing acted on the terminal.
    expect(done).toMatch(/│ +1 +clear:\^\[\[2J\^\[\[H here\s+│/);
    expect(done).toMatch(/│ +2 +title:\^\[\]0;pwned-title\^G \{red-fg\}RED\{\/red-fg\} end\s+│/);
    expect(done).toMatch(/│ +3 +bidi:<U\+202E>evil<U\+202C> end\s+│/);
    expect(done).toMatch(/│2 edit_file .* denied/);
    // The screen was never cleared: the header is still the transcript's first row.
    expect(done.split("\n")[1]).toMatch(/^│glassbox · scripted:\S+untrusted\.json ·/);
    expect(pane.format("#{pane_title}")).toBe(titleBefore);
    expect(pane.format("#{pane_title}")).not.toContain("pwned");
    expect(fs.readFileSync(path.join(workspace, "NOTES.md"), "utf8")).toBe(nasty);
    pane.close();
  }, 15_000);
});
