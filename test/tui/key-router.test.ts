import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseCli } from "../../src/cli/args.ts";
import { openSession } from "../../src/session/session.ts";
import { openSaved } from "../../src/session/store.ts";
import { ApprovalModal } from "../../src/tui/approval-modal.ts";
import type { Widgets } from "../../src/tui/blessed.ts";
import { Composer } from "../../src/tui/composer/composer.ts";
import { History } from "../../src/tui/composer/history.ts";
import { KeyRouter } from "../../src/tui/key-router.ts";
import { layout } from "../../src/tui/layout.ts";
import { ModelChoice } from "../../src/tui/model-choice.ts";
import { Overlay } from "../../src/tui/overlay.ts";
import { TranscriptPane } from "../../src/tui/panes/transcript-pane.ts";
import { VerdictsPane } from "../../src/tui/panes/verdicts-pane.ts";
import { RenderScheduler } from "../../src/tui/render-scheduler.ts";
import { RunControl } from "../../src/tui/run-control.ts";
import { scriptFile } from "../helpers/cli.ts";
import { fakeTerminal } from "../helpers/fake-terminal.ts";
import { heldRun } from "../helpers/run.ts";
import { makeWorkspace } from "../helpers/workspace.ts";

/** The TUI's widgets on a screen that writes to no terminal, routed by a KeyRouter; what the app's actions were asked, counted. */
function routed() {
  const { screen } = fakeTerminal();
  const ws = makeWorkspace();
  const session = openSession(parseCli(["--model", scriptFile([]), "--workspace", ws.root]));
  const l = layout(160, 45);
  const asked = { undo: 0, exit: 0, warnings: [] as string[] };
  const composer = new Composer(screen, l.input, new History(join(ws.outside, "history")), { commands: [], files: () => [] }, {
    submit: () => true,
    resized: () => {},
  });
  const transcript = new TranscriptPane(screen, l.transcript);
  const verdicts = new VerdictsPane(screen, l.verdicts);
  const overlay = new Overlay(screen, () => {});
  const modal = new ApprovalModal(screen, () => {}, () => l.transcript);
  const scheduler = new RenderScheduler(() => {});
  const runs = new RunControl(session, openSaved(session, {}), {
    start: heldRun,
    confirm: async () => true,
    show: () => undefined,
    restartMeters: () => {},
    say: () => {},
    warn: (text) => void asked.warnings.push(text),
    redraw: () => {},
  });
  const choice = new ModelChoice(screen, { session, args: {}, note: () => {}, warn: () => {}, redraw: () => {}, running: () => runs.active, modelChosen: () => {} });
  const keys = new KeyRouter({
    screen,
    composer,
    transcript,
    verdicts,
    overlay,
    modal,
    choice,
    scheduler,
    runs,
    undo: () => void asked.undo++,
    showPrompt: () => overlay.show("system prompt", "the layers"),
    exit: () => void asked.exit++,
  });
  composer.box.focus();
  /** One key as blessed reports it: a printable character, or a named key like "escape" or "C-c". */
  const press = (name: string) => {
    const ch = name.length === 1 ? name : undefined;
    keys.onKey(ch, { name: ch && !/[a-z]/.test(ch) ? "" : name, full: name, sequence: ch ?? "", ctrl: name.startsWith("C-"), meta: false, shift: false } as Widgets.Events.IKeyEventArg);
  };
  const type = (text: string) => [...text].forEach(press);
  const focused = () => (screen.focused === composer.box ? "input" : screen.focused === transcript.box ? "transcript" : screen.focused === verdicts.box ? "verdicts" : "other");
  return { keys, press, type, focused, composer, overlay, modal, verdicts, runs, asked, scheduler };
}

describe("key routing", () => {
  test("p on the empty input shows the prompt; a letter typed next closes it and both letters are typed", () => {
    const { press, type, composer, overlay, scheduler } = routed();
    press("p");
    expect(overlay.open).toBe(true);
    type("lease");
    expect(overlay.open).toBe(false);
    expect(composer.editor.text).toBe("please");
    scheduler.stop();
  });

  test("a key that scrolls the prompt ends the typing through: the next letter only closes it", () => {
    const { press, composer, overlay, scheduler } = routed();
    press("p");
    press("down");
    expect(overlay.open).toBe(true);
    press("l");
    expect(overlay.open).toBe(false);
    expect(composer.editor.text).toBe("");
    scheduler.stop();
  });

  test("? and u act on the empty input; once text is there they are typed", () => {
    const { press, type, composer, overlay, asked, scheduler } = routed();
    press("?");
    expect(overlay.open).toBe(true);
    press("escape");
    expect(overlay.open).toBe(false);
    press("u");
    expect(asked.undo).toBe(1);
    type("a?u");
    expect(composer.editor.text).toBe("a?u");
    expect(asked.undo).toBe(1);
    expect(overlay.open).toBe(false);
    scheduler.stop();
  });

  test("u during a run is typed, not an undo", () => {
    const { press, composer, runs, asked, scheduler } = routed();
    runs.send("long task");
    press("u");
    expect(asked.undo).toBe(0);
    expect(composer.editor.text).toBe("u");
    runs.quit();
    scheduler.stop();
  });

  test("Ctrl-C with nothing running quits at once; during a run the first warns and the second quits", () => {
    const idle = routed();
    idle.press("C-c");
    expect(idle.asked.exit).toBe(1);
    idle.scheduler.stop();

    const { press, runs, asked, scheduler } = routed();
    runs.send("long task");
    press("C-c");
    expect(asked.exit).toBe(0);
    expect(asked.warnings.at(-1)).toBe("a run is active: Ctrl-C again quits (Esc only stops the run)");
    press("C-c");
    expect(asked.exit).toBe(1);
    runs.quit();
    scheduler.stop();
  });

  test("Esc on the input stops the run", async () => {
    const { press, runs, scheduler } = routed();
    runs.send("long task");
    press("escape");
    for (let waited = 0; runs.active && waited < 2000; waited += 5) await Bun.sleep(5);
    expect(runs.active).toBe(false);
    scheduler.stop();
  });

  test("Tab moves the focus input → transcript → verdicts → input; Esc or Enter in a pane gives it back to the input", () => {
    const { press, focused, scheduler } = routed();
    const seen = [focused()];
    for (let i = 0; i < 3; i++) {
      press("tab");
      seen.push(focused());
    }
    expect(seen).toEqual(["input", "transcript", "verdicts", "input"]);
    press("tab");
    press("escape");
    expect(focused()).toBe("input");
    press("tab");
    press("enter");
    expect(focused()).toBe("input");
    scheduler.stop();
  });

  test("Enter in the verdicts pane opens the selected call's whole result; blessed's second report of Enter (return) does not close it", () => {
    const { press, verdicts, overlay, scheduler } = routed();
    verdicts.add({ kind: "tool_call", step: 1, id: "c1", tool: "read_file", arguments: "{}", decision: "allowed", reason: "", result_chars: 3, result: "abc" });
    press("tab");
    press("tab");
    press("up");
    press("enter");
    press("return");
    expect(overlay.open).toBe(true);
    scheduler.stop();
  });

  test("a question has the keys: letters answer it, a paste waits; after it a paste closes an overlay and lands in the input", async () => {
    const { keys, press, focused, composer, overlay, modal, scheduler } = routed();
    const answer = modal.confirm("undo", "Undo?", []);
    press("tab");
    expect(focused()).not.toBe("transcript");
    let pasted = 0;
    keys.toInput(() => pasted++);
    expect(pasted).toBe(0);
    press("y");
    expect(await answer).toBe(true);
    press("escape");
    press("tab");
    press("?");
    expect(overlay.open).toBe(true);
    keys.toInput(() => composer.paste("pasted text"));
    expect(overlay.open).toBe(false);
    expect(focused()).toBe("input");
    expect(composer.editor.text).toBe("pasted text");
    scheduler.stop();
  });
});
