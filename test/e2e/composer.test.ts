/**
 * End to end on the compiled binary in tmux: the input (bracketed paste, newline and editing
 * keys, history across a restart, @path completion and its confinement), the slash commands,
 * focus and the queue. tmux's `paste-buffer -p` wraps a paste in ESC[200~ … ESC[201~ only when
 * the program turned bracketed paste on, as a terminal does.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { E2E_SKIPPED, STATUS, expectCleanExit, useTerminal, type Pane } from "../helpers/terminal.ts";

/** The input: the bordered box right above the status line; its label (top border) and the rows inside. */
function inputBox(text: string): { label: string; rows: string[] } {
  const rows = text.split("\n").map((row) => row.trimEnd());
  let bottom = rows.length - 1;
  while (bottom > 0 && !rows[bottom]!.startsWith("└")) bottom--;
  let top = bottom - 1;
  while (top > 0 && !rows[top]!.startsWith("┌")) top--;
  return { label: rows[top]!, rows: rows.slice(top + 1, bottom).map((row) => row.replace(/^│/, "").replace(/│$/, "").trimEnd()) };
}

/** The input's text as shown, its rows joined by newlines. */
const INPUT = (text: string) => inputBox(text).rows.join("\n");
/** The input's top border: the keys, a hint, completion candidates. */
const INPUT_LABEL = (text: string) => inputBox(text).label;

/**
 * Esc, and the overlay titled `title` gone before the next key: Esc and a letter read together are
 * what a terminal sends for Alt+letter, so the next key waits as a person's would.
 */
async function closeOverlay(pane: Pane, title: string): Promise<void> {
  pane.keys("Escape");
  await pane.waitFor((text) => !text.includes(title), `${title} closed`);
}

/** Whether the transcript or the verdicts pane has the focus: the border before its label is drawn cyan (blessed's focus style). */
function paneFocused(styled: string): boolean {
  return /\x1b\[36m[^\x1b]*\x1b\[39m (transcript|tool verdicts) /.test(styled);
}

async function focusOn(pane: Pane, what: string, inPane: boolean): Promise<void> {
  const deadline = Date.now() + 8000;
  while (paneFocused(pane.styled()) !== inPane && Date.now() < deadline) await Bun.sleep(25);
  expect(paneFocused(pane.styled()) ? "a pane" : "the input").toBe(what);
}

/** The tasks of the workspace's runs, oldest first: what the model was sent. */
function tasks(workspace: string): string[] {
  const folder = path.join(workspace, ".glassbox", "runs");
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder)
    .sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(folder, name), "utf8").split("\n")[0]!))
    .map((line) => (line.event ?? line).task as string);
}

describe.skipIf(E2E_SKIPPED)("the input, the commands and the focus, in a real terminal", () => {
  const term = useTerminal();
  const { start, scripted } = term;

  function paste(pane: Pane, text: string): void {
    const file = path.join(term.dir, `${pane.name}-paste.txt`);
    fs.writeFileSync(file, text);
    term.tmux("load-buffer", "-b", pane.name, file);
    term.tmux("paste-buffer", "-p", "-d", "-b", pane.name, "-t", pane.name);
  }

  async function opened(name: string, replies: unknown[] = [{ content: "ok" }, { content: "ok again" }, { content: "and again" }]) {
    const { workspace, args } = scripted(name, replies);
    const pane = start(name, args);
    await pane.waitFor("Type a task", "the first frame");
    return { workspace, args, pane };
  }

  test("a pasted three-line error lands in the input whole; nothing is sent before Enter; Enter sends all of it", async () => {
    const { workspace, pane } = await opened("paste");
    pane.type("why? ");
    paste(pane, "TypeError: x is undefined\n    at parse (src/parse.ts:3:9)\n    at main (src/main.ts:1:1)");
    const typed = await pane.waitFor((text) => INPUT(text).includes("at main"), "the paste in the input");
    expect(INPUT(typed)).toBe("why? TypeError: x is undefined\n    at parse (src/parse.ts:3:9)\n    at main (src/main.ts:1:1)");
    await Bun.sleep(300);
    expect(tasks(workspace)).toEqual([]);
    expect(pane.screen()).not.toContain("›");
    pane.keys("Enter");
    await pane.waitFor("stopped: completed", "the run");
    expect(tasks(workspace)).toEqual(["why? TypeError: x is undefined\n    at parse (src/parse.ts:3:9)\n    at main (src/main.ts:1:1)"]);
    pane.close();
  }, 15_000);

  test("a paste of 40 lines is shown folded and sent whole", async () => {
    const { workspace, pane } = await opened("paste-long");
    const long = Array.from({ length: 40 }, (_, i) => `    at frame${i} (src/f.ts:${i}:1)`).join("\n");
    paste(pane, long);
    const folded = await pane.waitFor((text) => INPUT(text).includes("[pasted 40 lines]"), "the folded paste");
    expect(INPUT(folded)).toBe("[pasted 40 lines]");
    pane.type(" what is this?");
    pane.keys("Enter");
    await pane.waitFor("stopped: completed", "the run");
    expect(tasks(workspace)).toEqual([`${long} what is this?`]);
    pane.close();
  }, 15_000);

  test("Alt+Enter and Ctrl+J put newlines in the message; the input grows, then scrolls", async () => {
    const { workspace, pane } = await opened("newlines");
    pane.type("one");
    pane.keys("M-Enter");
    pane.type("two");
    pane.keys("C-j");
    pane.type("three");
    const grown = await pane.waitFor((text) => INPUT(text) === "one\ntwo\nthree", "three rows in the input");
    expect(tasks(workspace)).toEqual([]);
    expect(STATUS(grown)).toContain("idle");
    for (const n of [4, 5, 6, 7, 8]) {
      pane.keys("C-j");
      pane.type(`line ${n}`);
    }
    const scrolled = await pane.waitFor((text) => INPUT(text).endsWith("line 8"), "the input scrolled to its last row");
    expect(INPUT(scrolled).split("\n")).toHaveLength(6);
    expect(INPUT(scrolled)).not.toContain("one");
    expect(INPUT_LABEL(scrolled)).toContain("rows 3-8 of 8");
    pane.keys("Enter");
    await pane.waitFor("stopped: completed", "the run");
    expect(tasks(workspace)).toEqual(["one\ntwo\nthree\nline 4\nline 5\nline 6\nline 7\nline 8"]);
    pane.close();
  }, 15_000);

  test("the editing keys of a shell", async () => {
    const { workspace, pane } = await opened("editing");
    const expectInput = (want: string) => pane.waitFor((text) => INPUT(text) === want, `the input to read ${JSON.stringify(want)}`);
    pane.type("fix the parser now");
    await expectInput("fix the parser now");
    pane.keys("C-w", "BSpace");
    await expectInput("fix the parser");
    pane.keys("C-a");
    pane.type(">");
    await expectInput(">fix the parser");
    pane.keys("C-e");
    pane.type("!");
    await expectInput(">fix the parser!");
    pane.keys("M-b", "M-b");
    pane.type("_");
    await expectInput(">fix _the parser!");
    pane.keys("M-f");
    pane.type("^");
    await expectInput(">fix _the^ parser!");
    pane.keys("Home", "Delete");
    await expectInput("fix _the^ parser!");
    pane.keys("End", "BSpace", "Left", "Left");
    pane.type("|");
    await expectInput("fix _the^ pars|er");
    pane.keys("Right", "C-k");
    await expectInput("fix _the^ pars|e");
    pane.keys("Left", "C-u");
    await expectInput("e");
    pane.keys("Enter");
    await pane.waitFor("stopped: completed", "the run");
    expect(tasks(workspace)).toEqual(["e"]);
    pane.close();
  }, 15_000);

  test("↑ walks earlier messages, newest first, after a restart; slash commands are not kept", async () => {
    const { workspace, args, pane } = await opened("history");
    pane.type("first message");
    pane.keys("Enter");
    await pane.waitFor("stopped: completed", "the first run");
    pane.type("second");
    pane.keys("C-j");
    pane.type("of two lines");
    pane.keys("Enter");
    await pane.waitFor(/› second\s/, "the second run");
    pane.type("/limits");
    pane.keys("Enter");
    await pane.waitFor("limits — Esc closes", "the limits");
    pane.keys("Escape");
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
    expect(fs.readFileSync(path.join(workspace, ".glassbox", "history"), "utf8")).toBe('"first message"\n"second\\nof two lines"\n');

    const again = start("history-again", args);
    await again.waitFor("Type a task", "the first frame after the restart");
    again.type("draft");
    again.keys("Up");
    await again.waitFor((text) => INPUT(text) === "second\nof two lines", "the newest message");
    // The cursor is on the message's last row: ↑ moves up a row first, then walks on.
    again.keys("Up", "Up");
    await again.waitFor((text) => INPUT(text) === "first message", "the older message");
    again.keys("Up");
    await Bun.sleep(200);
    expect(INPUT(again.screen())).toBe("first message");
    again.keys("Down");
    await again.waitFor((text) => INPUT(text) === "second\nof two lines", "back to the newest");
    again.keys("Down", "Down");
    await again.waitFor((text) => INPUT(text) === "draft", "the draft back");
    again.close();
  }, 20_000);

  test("@ completes workspace files with Tab, and the message carries the file's text", async () => {
    const { workspace, pane } = await opened("at-path");
    pane.type("why does @sr");
    pane.keys("Tab");
    await pane.waitFor((text) => INPUT(text) === "why does @src/", "the folder completed");
    pane.type("v");
    pane.keys("Tab");
    await pane.waitFor((text) => INPUT(text) === "why does @src/version.ts", "the file completed");
    pane.type("fail?");
    pane.keys("Enter");
    const sent = await pane.waitFor("stopped: completed", "the run");
    expect(sent).toContain("› why does @src/version.ts fail? [attached: src/version.ts]");
    const version = fs.readFileSync(path.join(workspace, "src", "version.ts"), "utf8");
    expect(tasks(workspace)).toEqual([`why does @src/version.ts fail?\n\n[file src/version.ts, attached by the person]\n${version}`]);
    // Several candidates: listed in the input's border.
    pane.type("@");
    pane.keys("Tab");
    const listed = await pane.waitFor((text) => INPUT_LABEL(text).includes("@src/"), "the candidates");
    expect(INPUT_LABEL(listed)).toMatch(/@AGENTS\.md +@NOTES\.md +@README\.md .*@src\/ +@test\//);
    pane.close();
  }, 15_000);

  test("@ never reaches outside the workspace or off limits: not offered, not sent", async () => {
    const { workspace, pane } = await opened("at-confined");
    fs.writeFileSync(path.join(workspace, ".env"), "TOKEN=hunter2\n");
    fs.writeFileSync(path.join(path.dirname(workspace), "outside.txt"), "secret outside\n");
    fs.symlinkSync(path.join(path.dirname(workspace), "outside.txt"), path.join(workspace, "link.txt"));
    pane.type("@.en");
    pane.keys("Tab");
    await pane.waitFor((text) => INPUT_LABEL(text).includes("nothing matches @.en"), "no completion for .env");
    pane.type("v");
    pane.keys("Enter");
    const refused = await pane.waitFor((text) => STATUS(text).includes("not attached"), "the refusal");
    expect(STATUS(refused)).toContain("@.env is not attached: it names `.env`, which is off limits to every tool");
    expect(INPUT(refused)).toBe("@.env"); // kept, to fix
    pane.keys("C-u");
    pane.type("@../outside.txt");
    pane.keys("Enter");
    expect(STATUS(await pane.waitFor((text) => STATUS(text).includes("points outside"), "the refusal"))).toContain("@../outside.txt is not attached: it points outside the workspace");
    pane.keys("C-u");
    pane.type("@link.txt");
    pane.keys("Enter");
    await pane.waitFor((text) => STATUS(text).includes("through a link"), "the link refused");
    await Bun.sleep(200);
    expect(tasks(workspace)).toEqual([]);
    pane.close();
  }, 15_000);

  test("slash commands: the hint while typing, Tab completion, an unknown one named and nothing sent", async () => {
    const { workspace, pane } = await opened("slash");
    pane.type("/");
    const hint = await pane.waitFor((text) => INPUT_LABEL(text).includes("/help  /model"), "the hint");
    expect(INPUT_LABEL(hint)).toContain("/help  /model  /undo  /sessions  /new  /compact  /allow  /limits  /prompt  /quit");
    pane.type("li");
    await pane.waitFor((text) => INPUT_LABEL(text).includes("/limits: the budgets of a run"), "the one match");
    pane.keys("Tab");
    await pane.waitFor((text) => INPUT(text) === "/limits", "the completed name");
    pane.keys("Enter");
    const limits = await pane.waitFor("limits — Esc closes", "the limits overlay");
    expect(limits).toMatch(/max_steps +40/);
    await closeOverlay(pane, "limits — Esc closes");
    pane.type("/frobnicate");
    pane.keys("Enter");
    const unknown = await pane.waitFor((text) => STATUS(text).includes("unknown command"), "the unknown command");
    expect(STATUS(unknown)).toContain("unknown command /frobnicate: /help lists the commands");
    await Bun.sleep(200);
    expect(tasks(workspace)).toEqual([]);
    expect(fs.existsSync(path.join(workspace, ".glassbox", "history"))).toBe(false);
    pane.close();
  }, 15_000);

  /** Types a command on an emptied input, sends it, and waits for what it shows. */
  async function command(pane: Pane, text: string, want: string | RegExp): Promise<string> {
    pane.keys("C-u");
    pane.type(text);
    pane.keys("Enter");
    return pane.waitFor(want, text);
  }

  test("/help, /prompt, /sessions and /undo", async () => {
    const { pane } = await opened("slash-show");
    expect(await command(pane, "/help", "help — Esc closes")).toContain("/allow RULE");
    pane.keys("Escape");
    expect(await command(pane, "/prompt", "system prompt — Esc closes")).toMatch(/──── layer 00-base/);
    await closeOverlay(pane, "system prompt — Esc closes");
    pane.type("go");
    pane.keys("Enter");
    await pane.waitFor("stopped: completed", "a run, so the session is saved");
    expect(await command(pane, "/sessions", "sessions — Esc closes")).toMatch(/ID +STARTED +MODEL +RUNS/);
    pane.keys("Escape");
    await command(pane, "/undo", "nothing to undo: no run in this workspace changed a file");
    pane.close();
  }, 30_000);

  test("/allow RULE, /model and /quit", async () => {
    const { pane } = await opened("slash-do");
    await command(pane, "/allow edit_file:src/**", "allowed for this session without asking: edit_file:src/**");
    expect(STATUS(await command(pane, "/allow nonsense!", /\/allow: rule/))).toContain('/allow: rule "nonsense!" is not TOOL or TOOL:GLOB');
    await command(pane, "/model", "choose a model");
    pane.keys("Escape");
    await command(pane, "/quit", /^tty /m);
    await expectCleanExit(pane, 0);
    pane.close();
  }, 30_000);

  test("/new starts a new saved session; the next message starts a fresh conversation", async () => {
    const { workspace, pane } = await opened("slash-new");
    pane.type("remember the word kiwi");
    pane.keys("Enter");
    await pane.waitFor("stopped: completed", "the first run");
    pane.type("/new");
    pane.keys("Enter");
    await pane.waitFor("── new session", "the new session");
    pane.type("what was the word?");
    pane.keys("Enter");
    await pane.waitFor(/stopped: completed[\s\S]*stopped: completed/, "the second run");
    const sessions = fs.readdirSync(path.join(workspace, ".glassbox", "sessions"));
    expect(sessions).toHaveLength(2);
    const second = sessions.map((name) => fs.readFileSync(path.join(workspace, ".glassbox", "sessions", name), "utf8")).find((text) => text.includes("what was the word?"))!;
    expect(second).not.toContain("kiwi");
    pane.close();
  }, 15_000);

  test("/compact: the next message's run starts with the model's summary of the conversation", async () => {
    const { workspace, pane } = await opened("slash-compact", [
      { content: "", tool_calls: [{ id: "r1", name: "read_file", arguments: { path: "README.md" } }] },
      { content: "", tool_calls: [{ id: "r2", name: "read_file", arguments: { path: "NOTES.md" } }] },
      { content: "read them" },
      { content: "SUMMARY: the person asked twice.", answers: "summary" },
      { content: "continuing after the summary" },
    ]);
    await command(pane, "/compact", "/compact: nothing to summarize yet (the last 2 turns always stay whole)");
    pane.type("first, a question");
    pane.keys("Enter");
    await pane.waitFor("stopped: completed", "the first run");
    await command(pane, "/compact", "/compact: the model summarizes the conversation so far when the next message is sent");
    pane.type("and now?");
    pane.keys("Enter");
    const done = await pane.waitFor("continuing after the summary", "the second run");
    expect(done).toMatch(/\[\d+ earlier messages replaced by the model's own summary/);
    const session = fs.readdirSync(path.join(workspace, ".glassbox", "sessions"))[0]!;
    expect(fs.readFileSync(path.join(workspace, ".glassbox", "sessions", session), "utf8")).toContain("SUMMARY: the person asked twice.");
    pane.close();
  }, 20_000);

  test("a message sent during a run is queued, shown so, and sent when the run stops; /new during a run says to stop first", async () => {
    const { workspace, args } = scripted("queue", [
      { content: "", tool_calls: [{ id: "w1", name: "run_check", arguments: { name: "wait" } }] },
      { content: "waited" },
      { content: "second answer" },
    ]);
    fs.writeFileSync(path.join(workspace, "glassbox.json"), JSON.stringify({ checks: { wait: { argv: ["sleep", "3"], timeout_seconds: 20 } } }));
    const pane = start("queue", args);
    await pane.waitFor("Type a task", "the first frame");
    pane.type("wait a bit");
    pane.keys("Enter");
    // The model asks for the check at once; it sleeps 3 s, and the run waits for it.
    await pane.waitFor("› wait a bit", "the run");
    pane.type("/new");
    pane.keys("Enter");
    expect(STATUS(await pane.waitFor((text) => STATUS(text).includes("stop it first"), "/new refused"))).toContain("/new: a run is active; stop it first (Esc), then /new");
    pane.keys("C-u");
    pane.type("then this");
    pane.keys("Enter");
    const queued = await pane.waitFor("queued, sent when this run stops: then this", "the queued message");
    expect(STATUS(queued)).toContain("1 queued");
    expect(tasks(workspace)).toEqual(["wait a bit"]);
    await pane.waitFor("second answer", "the queued message's run", 15_000);
    expect(tasks(workspace)).toEqual(["wait a bit", "then this"]);
    pane.close();
  }, 25_000);

  test("focus: Tab cycles input → transcript → verdicts → input; Esc in a pane gives the input back; single keys on an empty input", async () => {
    const { pane } = await opened("focus");
    pane.keys("Tab");
    pane.keys("x"); // in the transcript, a letter is not typed
    pane.keys("Tab", "Tab");
    pane.type("a");
    await pane.waitFor((text) => INPUT(text) === "a", "typing after a full cycle");
    pane.keys("BSpace", "Tab");
    await focusOn(pane, "a pane", true);
    pane.keys("Escape");
    // Esc and a letter read together are what a terminal sends for Alt+letter: the letter waits
    // until the Esc has given the input back.
    await focusOn(pane, "the input", false);
    pane.type("b");
    await pane.waitFor((text) => INPUT(text) === "b", "typing after Esc in a pane");
    pane.keys("BSpace");
    await pane.waitFor((text) => INPUT(text) === "", "the input empty");
    // p on an empty input shows the prompt; a letter after it closes it, and "pl" is typed.
    pane.keys("p");
    await pane.waitFor("system prompt — Esc closes", "the prompt");
    pane.type("lease fix it");
    const typed = await pane.waitFor((text) => INPUT(text) === "please fix it", "the message typed through");
    expect(typed).not.toContain("system prompt — Esc closes");
    pane.keys("C-u", "?");
    await pane.waitFor("help — Esc closes", "the help");
    await closeOverlay(pane, "help — Esc closes");
    pane.keys("u");
    await pane.waitFor("nothing to undo", "u on the empty input");
    pane.close();
  }, 15_000);
});
