import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseCli } from "../../src/cli/args.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import type { Message } from "../../src/protocol/messages.ts";
import { openSession, type Session } from "../../src/session/session.ts";
import { startRun, type StartedRun } from "../../src/session/start-run.ts";
import { openSaved } from "../../src/session/store.ts";
import { RunControl, type RunEffects } from "../../src/tui/run-control.ts";
import { scriptFile } from "../helpers/cli.ts";
import { call, heldRun } from "../helpers/run.ts";
import { makeWorkspace } from "../helpers/workspace.ts";

/** What the run control did to the rest of the TUI, in order. */
interface Recorder {
  started: { task: string; summarizeFirst: boolean }[];
  shown: AgentEvent[];
  said: string[];
  warnings: string[];
  /** The undo hint's count at each stop. */
  changedAtStop: number[];
  asked: string[];
  restartedMeters: number;
  /** The last event shown before each frame asked for at once. */
  drawnAtOnce: string[];
}

/** A session over a toy workspace whose model plays `replies`. */
function scriptedSession(replies: Parameters<typeof scriptFile>[0] = []): Session {
  const ws = makeWorkspace();
  return openSession(parseCli(["--model", scriptFile(replies), "--workspace", ws.root, "--allow", "write_file"]));
}

/**
 * A run control whose runs are `start`'s (the session's real runs by default), and whose
 * questions are answered by `answers` in turn.
 */
function control(session: Session, options: { start?: (task: string, signal: AbortSignal) => StartedRun; answers?: boolean[]; saved?: ReturnType<typeof openSaved>; prepare?: RunEffects["prepare"] } = {}) {
  const seen: Recorder = { started: [], shown: [], said: [], warnings: [], changedAtStop: [], asked: [], restartedMeters: 0, drawnAtOnce: [] };
  const answers = [...(options.answers ?? [])];
  const effects: RunEffects = {
    start(task, signal, saved, summarizeFirst) {
      seen.started.push({ task, summarizeFirst });
      return options.start ? options.start(task, signal) : startRun(session, task, signal, saved, summarizeFirst);
    },
    confirm: async (title) => {
      seen.asked.push(title);
      return answers.shift() ?? false;
    },
    show(event, changedFiles) {
      seen.shown.push(event);
      if (event.kind === "stop") seen.changedAtStop.push(changedFiles());
      return event.kind === "stop" ? "" : undefined;
    },
    restartMeters: () => void seen.restartedMeters++,
    say: (text) => void seen.said.push(text),
    warn: (text) => void seen.warnings.push(text),
    redraw: (now) => {
      if (now) seen.drawnAtOnce.push(seen.shown.at(-1)?.kind ?? "nothing");
    },
    prepare: options.prepare,
  };
  return { runs: new RunControl(session, options.saved ?? openSaved(session, {}), effects), seen };
}

async function until(what: string, condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 5000) throw new Error(`still waiting for ${what}`);
    await Bun.sleep(5);
  }
}

const tasks = (shown: AgentEvent[]) => shown.flatMap((event) => (event.kind === "run_start" ? [event.task] : []));

describe("run control", () => {
  test("a message sent during a run is queued, said, and runs when the run before it stops", async () => {
    const session = scriptedSession([{ content: "first answer" }, { content: "second answer" }]);
    const { runs, seen } = control(session);
    runs.send("first task");
    expect(runs.active).toBe(true);
    runs.submit("second task", "second task\nwith a second line");
    expect(runs.queued).toBe(1);
    expect(seen.said).toEqual(["queued, sent when this run stops: second task …"]);
    await until("both runs to stop", () => seen.shown.filter((event) => event.kind === "stop").length === 2);
    expect(tasks(seen.shown)).toEqual(["first task", "second task"]);
    expect(runs.queued).toBe(0);
    await until("the last run to end", () => !runs.active);
    expect(runs.state).toBe("stopped: completed");
  });

  test("a message sent between runs starts a run at once, nothing queued", async () => {
    const { runs, seen } = control(scriptedSession(), { start: heldRun });
    runs.submit("now", "now");
    expect(seen.started.map((run) => run.task)).toEqual(["now"]);
    expect(seen.said).toEqual([]);
    expect(runs.queued).toBe(0);
    runs.interrupt();
  });

  test("a finished run is let go: nothing the control keeps (its redraw ticker) holds the run's events", async () => {
    let events: WeakRef<object> | undefined;
    // Made in a function of its own, so no pointer to the run stays on this test's stack.
    const start = (task: string): StartedRun => {
      const run: StartedRun = { runId: task, logPath: "", events: (async function* (): AsyncGenerator<AgentEvent> {})() };
      events = new WeakRef(run.events);
      return run;
    };
    const { runs } = control(scriptedSession(), { start });
    runs.send("task");
    await until("the run to stop", () => !runs.active);
    Bun.gc(true);
    expect(events!.deref()).toBeUndefined();
  });

  test("the stop of a run that wrote a file offers the undo: its journal counts the file", async () => {
    const session = scriptedSession([call("write_file", { path: "notes/new.txt", content: "hello\n" }), { content: "wrote it" }]);
    const { runs, seen } = control(session);
    runs.send("write a note");
    await until("the run to stop", () => seen.changedAtStop.length === 1);
    expect(existsSync(join(session.workspace.root, "notes/new.txt"))).toBe(true);
    expect(seen.changedAtStop).toEqual([1]);
  });

  test("Esc stops the running run and says so; with nothing running it does nothing", async () => {
    const { runs, seen } = control(scriptedSession(), { start: heldRun });
    runs.interrupt();
    expect(seen.warnings).toEqual([]);
    runs.send("long task");
    runs.interrupt();
    expect(seen.warnings.at(-1)).toBe("stopping the run…");
    await until("the run to end", () => !runs.active);
  });

  test("Ctrl-C: the first during a run only warns, the second quits; each run asks again; between runs it quits at once", async () => {
    const { runs, seen } = control(scriptedSession(), { start: heldRun });
    expect(runs.quitOnCtrlC()).toBe(true);
    runs.send("one");
    expect(runs.quitOnCtrlC()).toBe(false);
    expect(seen.warnings.at(-1)).toBe("a run is active: Ctrl-C again quits (Esc only stops the run)");
    expect(runs.quitOnCtrlC()).toBe(true);
    runs.interrupt();
    await until("the run to end", () => !runs.active);
    runs.send("two");
    expect(runs.quitOnCtrlC()).toBe(false);
    runs.quit();
    await until("the run to end", () => !runs.active);
  });

  test("runs wait for what they are held for (the MCP servers starting)", async () => {
    const { runs, seen } = control(scriptedSession(), { start: heldRun });
    let ready!: () => void;
    runs.holdUntil(new Promise<void>((resolve) => (ready = resolve)));
    runs.send("after the servers");
    await Bun.sleep(10);
    expect(seen.started).toEqual([]);
    ready();
    await until("the run to start", () => seen.started.length === 1);
    expect(runs.active).toBe(true);
    runs.quit();
  });

  test("a message waits for the model's server to start, said so; one whose server did not start is not sent, and said so", async () => {
    let loaded!: (ready: boolean) => void;
    let loading: Promise<boolean> | null = new Promise<boolean>((resolve) => (loaded = resolve));
    const { runs, seen } = control(scriptedSession(), { start: heldRun, prepare: () => loading });
    runs.send("fix the tests\nplease");
    await Bun.sleep(10);
    expect(seen.started).toEqual([]);
    expect(seen.said).toEqual(["sent once the model has loaded: fix the tests …"]);
    loading = null;
    loaded(true);
    await until("the run to start", () => seen.started.length === 1);
    runs.quit();
    await until("the run to end", () => !runs.active);

    loading = new Promise<boolean>((resolve) => (loaded = resolve));
    runs.send("again");
    loaded(false);
    await until("the refusal", () => seen.said.length === 3);
    expect(seen.said.at(-1)).toBe("the message was not sent, the model's server did not start; ↑ on the input line brings it back");
    expect(seen.started).toHaveLength(1);
  });

  test("drifted prompt layers are confirmed once: no, no run; yes, this run and the next start without asking", async () => {
    const session = scriptedSession();
    session.drift = ["layer base changed"];
    const { runs, seen } = control(session, { start: heldRun, answers: [false, true] });
    runs.send("refused");
    await until("the question", () => seen.said.length === 1);
    expect(seen.said).toEqual(["run not started: the prompt layers differ from prompts.lock (glassbox audit --check)"]);
    expect(seen.started).toEqual([]);
    runs.send("accepted");
    await until("the run to start", () => seen.started.length === 1);
    runs.interrupt();
    await until("the run to end", () => !runs.active);
    runs.send("no question");
    expect(seen.asked).toEqual(["prompt layers changed", "prompt layers changed"]);
    expect(seen.started.map((run) => run.task)).toEqual(["accepted", "no question"]);
    runs.quit();
  });

  test("/compact asks the next run, and only the next, for a summary; said when off or nothing to summarize", async () => {
    const session = scriptedSession();
    const { runs, seen } = control(session, { start: heldRun });
    runs.compact();
    expect(seen.said.at(-1)).toBe(`/compact: nothing to summarize yet (the last ${session.config.context.keep_turns} turns always stay whole)`);
    const turns: Message[] = Array.from({ length: session.config.context.keep_turns + 3 }, (_, turn) => [
      { role: "user", content: `question ${turn}` } as Message,
      { role: "assistant", content: `answer ${turn}` } as Message,
    ]).flat();
    runs.saved.record.push({ role: "user", content: "the task" } as Message, ...turns);
    runs.compact();
    expect(seen.said.at(-1)).toStartWith("/compact: the model summarizes the conversation so far");
    runs.send("summarized");
    runs.quit();
    await until("the run to end", () => !runs.active);
    runs.send("whole");
    runs.quit();
    expect(seen.started).toEqual([
      { task: "summarized", summarizeFirst: true },
      { task: "whole", summarizeFirst: false },
    ]);
    session.config.components.context_management = false;
    runs.compact();
    expect(seen.warnings.at(-1)).toBe("/compact: context management is off in this workspace's config (components.context_management)");
  });

  test("/new: another saved session, the plan and meters start over, a pending /compact is dropped", () => {
    const session = scriptedSession();
    const { runs, seen } = control(session, { start: heldRun });
    const old = runs.saved.id;
    session.checkpoint.todo.push({ text: "a step", status: "pending" });
    runs.saved.record.push({ role: "user", content: "the task" } as Message, ...Array.from({ length: 20 }, (_, turn) => ({ role: turn % 2 ? "assistant" : "user", content: `${turn}` }) as Message));
    runs.compact();
    runs.newSession();
    expect(runs.saved.id).not.toBe(old);
    expect(session.checkpoint.todo).toEqual([]);
    expect(seen.restartedMeters).toBe(1);
    expect(runs.view.state).toBe("idle");
    expect(seen.said.at(-1)).toBe(`── new session ${runs.saved.id}: the model starts a fresh conversation (${old} stays in glassbox sessions) ──`);
    runs.send("fresh");
    runs.quit();
    expect(seen.started).toEqual([{ task: "fresh", summarizeFirst: false }]);
  });

  test("a live reply's end is drawn at once, without waiting for the rest of the turn; a replayed one is not", async () => {
    const session = scriptedSession([{ content: "one" }, { content: "two" }]);
    const first = control(session);
    first.runs.send("first");
    await until("the run to end", () => !first.runs.active);
    first.runs.send("second");
    await until("the second run to end", () => first.seen.changedAtStop.length === 2 && !first.runs.active);
    expect(first.seen.drawnAtOnce).toEqual(["model_done", "model_reply", "model_done", "model_reply"]);
    first.runs.saved.flush();

    const again = control(session, { saved: openSaved(session, { continue: true }) });
    again.runs.restore();
    expect(again.seen.shown.filter((event) => event.kind === "model_reply")).toHaveLength(2);
    expect(again.seen.drawnAtOnce).toEqual([]);
  });

  test("a continued session is drawn again from its saved events, then said where it stands", async () => {
    const session = scriptedSession([{ content: "saved answer" }]);
    const first = control(session);
    first.runs.restore();
    expect(first.seen.said).toEqual([`session ${first.runs.saved.id}, saved as it goes (glassbox --continue reopens it)`]);
    first.runs.send("remember this");
    await until("the run to stop", () => first.seen.changedAtStop.length === 1);
    await until("the run to end", () => !first.runs.active);
    first.runs.saved.flush();

    const again = control(session, { saved: openSaved(session, { continue: true }) });
    again.runs.restore();
    expect(again.runs.saved.id).toBe(first.runs.saved.id);
    expect(tasks(again.seen.shown)).toEqual(["remember this"]);
    expect(again.seen.shown.map((event) => event.kind)).toEqual(first.seen.shown.map((event) => event.kind));
    expect(again.seen.said[0]).toStartWith(`session ${first.runs.saved.id} restored: 1 run(s) since `);
    expect(again.seen.said.at(-1)).toBe("── restored up to here: the next message continues this conversation ──");
    expect(again.runs.view.state).toBe("stopped: completed");
    expect(again.seen.warnings.at(-1)).toBe("");
  });

  test("quitting (a closed terminal too) stops the run and resolves only once it has ended; a queued message is not sent", async () => {
    let ended = false;
    const slowToStop = (task: string, signal: AbortSignal): StartedRun => ({
      runId: `slow-${task}`,
      logPath: "",
      events: (async function* (): AsyncGenerator<AgentEvent> {
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
        // The check's processes are killed and its temp folder removed before the stop event.
        await Bun.sleep(50);
        ended = true;
        yield { kind: "stop", status: "interrupted", steps: 1, tool_calls: 1, answer: "", reason: "the user stopped the run" } as AgentEvent;
      })(),
    });
    const { runs, seen } = control(scriptedSession(), { start: slowToStop });
    runs.submit("first", "first");
    runs.submit("queued", "queued");
    await runs.quit();
    expect(ended).toBe(true);
    expect(seen.shown.at(-1)).toMatchObject({ kind: "stop", status: "interrupted" });
    await Bun.sleep(20);
    expect(seen.started.map((started) => started.task)).toEqual(["first"]);
  });
});
