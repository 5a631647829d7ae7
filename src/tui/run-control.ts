import { windowOf } from "../model/options.ts";
import type { AgentEvent } from "../protocol/events.ts";
import { summaryRange } from "../core/context.ts";
import { normalJit } from "../platform/jit.ts";
import type { Session } from "../session/session.ts";
import type { StartedRun } from "../session/start-run.ts";
import { openSaved, restoreNotes, shortTime, summarize, type SavedSession } from "../session/store.ts";
import { changedFiles } from "../files/journal.ts";
import { emptyView, fold, type RunView } from "./run-view.ts";
import { sanitize } from "./sanitize.ts";

/** How long after a run ends the TUI gives memory back: after the run's last frames are drawn. */
const IDLE_COLLECT_MS = 1000;

/** What a run does to the rest of the TUI, injected so the lifecycle is tested without a terminal. */
export interface RunEffects {
  /** Starts a run of the session (start-run.ts's startRun). */
  start(task: string, signal: AbortSignal, saved: SavedSession, summarizeFirst: boolean): StartedRun;
  /** Asks the person yes or no (the approval modal). */
  confirm(title: string, question: string, lines: string[]): Promise<boolean>;
  /** Draws an event in the panes (event-view.ts); returns the status line's new warning, if any. */
  show(event: AgentEvent, changedFiles: () => number): string | undefined;
  /** A new session: the meters start over. */
  restartMeters(): void;
  /** A notice in the transcript. */
  say(text: string): void;
  /** The status line's warning ("" clears it). */
  warn(text: string): void;
  /** Asks for a frame, at the pace of text pouring in; `now`: drawn at once (the end of a live reply). */
  redraw(now?: boolean): void;
  /**
   * What must happen before a run (the model's own server starting): null when nothing, else a
   * promise of whether it happened; a message waits for it, and is not sent when it did not.
   */
  prepare?(): Promise<boolean> | null;
}

/**
 * The TUI's runs: one at a time, messages sent meanwhile queued, Esc and Ctrl-C, /compact and
 * /new, and a continued session drawn again from its saved events.
 */
export class RunControl {
  private currentView: RunView;
  private currentSaved: SavedSession;
  private running: AbortController | null = null;
  /** The last run's end: its stop event written, its check's processes and temp folder gone. */
  private ended: Promise<void> = Promise.resolve();
  /** /compact was asked for: the next run starts with a summary. */
  private summarizeNext = false;
  /** Messages sent during a run: each starts a run of its own when the one before stops. */
  private readonly queue: string[] = [];
  /** The latest run's id: its undo journal says whether it changed files. */
  private runId: string | null = null;
  /** Set once the person has seen the prompt drift and chose to go on. */
  private driftAccepted = false;
  private quitArmed = false;
  private ticker: ReturnType<typeof setInterval> | null = null;
  /** Runs wait for it (the MCP servers starting); null once it resolved. */
  private held: Promise<void> | null = null;

  constructor(
    private readonly session: Session,
    saved: SavedSession,
    private readonly effects: RunEffects,
  ) {
    this.currentSaved = saved;
    this.currentView = this.freshView();
  }

  /** The runs folded into what the meters and the status line show. */
  get view(): RunView {
    return this.currentView;
  }

  get saved(): SavedSession {
    return this.currentSaved;
  }

  get active(): boolean {
    return this.running !== null;
  }

  get queued(): number {
    return this.queue.length;
  }

  /** The run's state for the status line: a run not yet past its start is already streaming. */
  get state(): string {
    return this.running && this.currentView.state === "starting" ? "streaming" : this.currentView.state;
  }

  /** Runs asked for before `ready` resolves start once it did. */
  holdUntil(ready: Promise<void>): void {
    this.held = ready;
    void ready.then(() => {
      if (this.held === ready) this.held = null;
    });
  }

  /** A message from the input: sent, or queued while a run is active (and said so). */
  submit(message: string, typed: string): void {
    if (this.running) {
      this.queue.push(message);
      this.effects.say(`queued, sent when this run stops: ${firstLine(typed)}`);
      return this.effects.redraw();
    }
    this.send(message);
  }

  /** Starts a run for a task or a follow-up. One run at a time. */
  send(text: string): void {
    if (this.held) {
      void this.held.then(() => this.send(text));
      return;
    }
    if (this.running) {
      this.queue.push(text);
      return this.effects.redraw();
    }
    const preparing = this.effects.prepare?.() ?? null;
    if (preparing) {
      this.effects.say(`sent once the model has loaded: ${firstLine(text)}`);
      this.effects.redraw();
      void preparing.then((ready) => (ready ? this.send(text) : this.effects.say("the message was not sent, the model's server did not start; ↑ on the input line brings it back")));
      return;
    }
    const drift = this.session.drift;
    if (drift?.length && !this.driftAccepted) {
      // The layers changed since prompts.lock: the person sees what changed before any run.
      void this.effects.confirm("prompt layers changed", "The system prompt differs from prompts.lock. Start the run anyway?", drift).then((go) => {
        if (!go) {
          this.effects.say("run not started: the prompt layers differ from prompts.lock (glassbox audit --check)");
          return this.effects.redraw();
        }
        this.driftAccepted = true;
        this.send(text);
      });
      return;
    }
    this.effects.warn("");
    this.quitArmed = false;
    const abort = new AbortController();
    this.running = abort;
    this.ticker = setInterval(() => this.effects.redraw(), 500);
    const run = this.effects.start(text, abort.signal, this.currentSaved, this.summarizeNext);
    this.summarizeNext = false;
    this.runId = run.runId;
    this.ended = (async () => {
      try {
        for await (const event of run.events) this.onEvent(event);
      } catch (error) {
        this.effects.say(`glassbox failed: ${(error as Error).message}`);
      } finally {
        this.running = null;
        this.stopTicker();
        this.effects.redraw();
        const next = this.queue.shift();
        if (next !== undefined) this.send(next);
        else this.collectWhenIdle();
      }
    })();
  }

  /**
   * A finished run leaves its garbage behind, and an idle TUI allocates too little for the
   * collector to come back for it. A second after the run, `Bun.shrink()` collects everything,
   * drops compiled code (the next run compiles what it uses again, a few milliseconds) and hands
   * the allocator's free pages back to the system. Measured after a million-token reply: +12 MB
   * resident instead of +25 MB with nothing, or +18 MB with `Bun.gc(true)` alone. Starting up
   * leaves garbage too (modules, config, the first frame): 1 MiB less resident when idle.
   */
  collectWhenIdle(delayMs = IDLE_COLLECT_MS): void {
    setTimeout(() => {
      if (!this.running) Bun.shrink();
    }, delayMs).unref();
  }

  /** Esc on the input: stops the running reply; otherwise nothing. */
  interrupt(): void {
    if (!this.running) return;
    this.running.abort();
    this.effects.warn("stopping the run…");
    this.effects.redraw();
  }

  /** Ctrl-C: the first one during a run only warns (Esc stops a run without quitting). True: quit now. */
  quitOnCtrlC(): boolean {
    if (this.running && !this.quitArmed) {
      this.quitArmed = true;
      this.effects.warn("a run is active: Ctrl-C again quits (Esc only stops the run)");
      this.effects.redraw();
      return false;
    }
    return true;
  }

  /** Quitting: the running run is stopped and its frames with it; resolves once it has ended. Nothing queued starts. */
  quit(): Promise<void> {
    this.queue.length = 0;
    this.running?.abort();
    this.stopTicker();
    return this.ended;
  }

  /**
   * The ticker's closure shares the scope of the run it was started with: a cleared timer still
   * held here would keep the finished run alive, and with it every local of its generators (the
   * reply's text a second time, its pieces).
   */
  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
  }

  /**
   * /compact: the context manager summarizes the conversation at the next message's first
   * request (a summary is a model call, and the loop makes every model call of a session).
   */
  compact(): void {
    const { config } = this.session;
    if (!config.components.context_management) {
      this.effects.warn("/compact: context management is off in this workspace's config (components.context_management)");
    } else if (!summaryRange(this.currentSaved.record, this.currentSaved.context.summary, config.context.keep_turns)) {
      this.effects.say(`/compact: nothing to summarize yet (the last ${config.context.keep_turns} turns always stay whole)`);
    } else {
      this.summarizeNext = true;
      this.effects.say("/compact: the model summarizes the conversation so far when the next message is sent (its last turns stay whole)");
    }
  }

  /** /new: a new saved session; the old one stays in `glassbox sessions`. The plan and the meters start over too. */
  newSession(): void {
    const old = this.currentSaved.id;
    this.currentSaved = openSaved(this.session, {});
    this.summarizeNext = false;
    this.session.checkpoint.todo.splice(0);
    this.currentView = this.freshView();
    this.effects.restartMeters();
    this.effects.say(`── new session ${this.currentSaved.id}: the model starts a fresh conversation (${old} stays in glassbox sessions) ──`);
  }

  /**
   * A continued session: the transcript, verdicts and meters drawn again from its saved events,
   * the plan from its last todo list. Said first: what was skipped, and a change of model.
   */
  restore(): void {
    const restored = this.currentSaved.restored;
    if (!restored) {
      this.effects.say(`session ${this.currentSaved.id}, saved as it goes (glassbox --continue reopens it)`);
      return;
    }
    // Replaying a long session is work that repeats, like a run: the JIT's normal policy.
    normalJit();
    const summary = summarize(restored);
    this.effects.say(`session ${restored.id} restored: ${summary.runs} run(s) since ${shortTime(restored.startedAt)}`);
    for (const { event, at } of restored.events) this.onEvent(event, at);
    // A run cut off by the end of glassbox has no stop: its meters end where its last line was written.
    if (summary.lastStatus === "unfinished") this.currentView = { ...this.currentView, state: "unfinished", endedAt: restored.lastAt, streamStartedAt: null };
    for (const note of restoreNotes(restored)) this.effects.say(note);
    // With no model named yet the picker asks; its choice is said where the model is shown.
    if (this.session.spec !== null && summary.model && summary.model !== this.session.model.name) this.effects.say(`this session ran with ${sanitize(summary.model)}; it continues with ${sanitize(this.session.model.name)}`);
    this.effects.say("── restored up to here: the next message continues this conversation ──");
    this.effects.warn("");
  }

  /** `replayedAt`: when a restored session's event happened (it is drawn again, not live). */
  private onEvent(event: AgentEvent, replayedAt?: number): void {
    this.currentView = fold(this.currentView, event, replayedAt ?? Date.now());
    const warning = this.effects.show(event, () => (this.runId ? changedFiles(this.session.workspace.root, this.runId) : 0));
    if (warning !== undefined) this.effects.warn(warning);
    // A reply's last words are drawn at once, not at the pace of text pouring in: when the stream
    // ends, before the reply is assembled and logged, and again with its figures (the words too,
    // when a server ended its stream without a finish reason; the rest of the turn goes on before
    // a timer could fire); a replayed session draws once, at its end.
    this.effects.redraw(replayedAt === undefined && (event.kind === "model_done" || event.kind === "model_reply"));
  }

  /** A scripted model has no server to ask: the window the context manager works against is num_ctx. */
  private freshView(): RunView {
    return emptyView(this.session.limits, this.session.model.contextSize ? null : windowOf(this.session.config.model_options));
  }
}

/** A message as a notice shows it: its first line, with a mark when there is more. */
function firstLine(text: string): string {
  return `${sanitize(text.split("\n")[0]!)}${text.includes("\n") ? " …" : ""}`;
}
