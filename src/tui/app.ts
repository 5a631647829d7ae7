import type { CliArgs } from "../cli/args.ts";
import { connectServers, openSession, startRun, type Session } from "../session/session.ts";
import type { AgentEvent } from "../core/events.ts";
import { openSaved, restoreNotes, shortTime, summarize, type SavedSession } from "../session/store.ts";
import { assembleMarked } from "../prompt/layers.ts";
import { layerStates, readLock } from "../prompt/lock.ts";
import { ApprovalModal } from "./approval-modal.ts";
import { benchHook } from "./bench-hook.ts";
import { blessed, createScreen, drawOnly, terminalProblem, type Widgets } from "./blessed.ts";
import { layout, type Layout } from "./layout.ts";
import { Overlay } from "./overlay.ts";
import { LayersPane, layerPaneRows } from "./panes/layers-pane.ts";
import { mcpQuestions } from "./mcp-questions.ts";
import { MetersPane } from "./panes/meters-pane.ts";
import { PlanPane } from "./panes/plan-pane.ts";
import { TranscriptPane } from "./panes/transcript-pane.ts";
import { VerdictsPane } from "./panes/verdicts-pane.ts";
import { RenderScheduler, paceFor } from "./render-scheduler.ts";
import { emptyView, fold, meters, type RunView } from "./run-view.ts";
import { sanitize } from "./sanitize.ts";
import { ModelChoice, type InputLine } from "./model-choice.ts";
import { offerUndo } from "./undo-prompt.ts";
import { Composer } from "./composer/composer.ts";
import { History, historyPath } from "./composer/history.ts";
import { RawInput, bracketedPaste } from "./composer/raw-input.ts";
import { attachFiles } from "./composer/attachments.ts";
import { statusLine } from "./status-line.ts";
import { showEvent, type EventPanes } from "./event-view.ts";
import { serverProblem } from "./server-check.ts";
import { runSlash, SLASH_NAMES, type SlashHost } from "./slash-commands.ts";
import { helpText } from "./help.ts";
import { sessionLines } from "../cli/sessions.ts";
import { parseRule } from "../core/policy.ts";
import { summaryRange } from "../core/context.ts";
import { TOOL_NAMES } from "../tools/index.ts";
import { workspaceFiles } from "../tools/tree/walk.ts";
import { changedFiles } from "../undo/journal.ts";
import { probeSandboxAhead } from "../sandbox/detect.ts";
import { interactiveJit, normalJit } from "../platform/jit.ts";

export interface TuiOptions {
  /** Start the args' task at once (the demo). */
  autoStart?: boolean;
  /** Makes the arguments once the terminal is known to work (the demo's temporary workspace). */
  prepare?: () => CliArgs;
}

/** How long after a run ends the TUI gives memory back: after the run's last frames are drawn. */
const IDLE_COLLECT_MS = 1000;
/** How long after the first frame the TUI gives back what starting it left behind. */
const STARTUP_COLLECT_MS = 100;

/** The interactive split-pane TUI. Resolves with the exit code when the user quits. */
export async function runTui(args: CliArgs, options: TuiOptions = {}): Promise<number> {
  const problem = terminalProblem();
  if (problem) {
    console.error(`glassbox: ${problem}`);
    return 1;
  }
  args = options.prepare?.() ?? args;
  let modal: ApprovalModal | null = null;
  await probeSandboxAhead();
  // Usage and config mistakes surface here, before the screen takes over the terminal.
  const session = openSession(args, (request) => modal!.ask(request));
  const saved = openSaved(session, args);
  // Pastes and Alt+Enter are taken out of the terminal's input before blessed parses it.
  const input = new RawInput();
  const screen = createScreen({ input: input as unknown as Widgets.IScreenOptions["input"] });
  bracketedPaste(screen);
  const app = new TuiApp(screen, input, session, args, saved);
  modal = app.modal;
  app.collectWhenIdle(STARTUP_COLLECT_MS);
  app.startServers();
  if (options.autoStart && args.task) app.send(args.task);
  else if (session.spec === null) void app.choice.find();
  else void app.checkServer(args);
  return app.finished;
}

class TuiApp {
  readonly modal: ApprovalModal;
  readonly choice: ModelChoice;
  readonly finished: Promise<number>;
  private readonly overlay: Overlay;
  private readonly transcript: TranscriptPane;
  private readonly verdicts: VerdictsPane;
  private readonly meters: MetersPane;
  private readonly layers: LayersPane;
  private readonly plan: PlanPane;
  /** The panes an agent event is drawn in (event-view.ts). */
  private readonly panes: EventPanes;
  private readonly composer: Composer;
  /** The input's text as the model choice reads and sets it (the m of "make" typed back). */
  private readonly inputLine: InputLine;
  /** Set once the person has seen the prompt drift and chose to go on. */
  private driftAccepted = false;
  /** Each layer against prompts.lock, read once like the layers themselves. */
  private layerStates: ReturnType<typeof layerStates>;
  private readonly lock: ReturnType<typeof readLock> = null;
  private readonly status: Widgets.BoxElement;
  private readonly scheduler: RenderScheduler;
  private readonly draw: () => void;
  private view: RunView;
  private running: AbortController | null = null;
  /** /compact was asked for: the next run starts with a summary. */
  private summarizeNext = false;
  /** Messages sent during a run: each starts a run of its own when the one before stops. */
  private readonly queued: string[] = [];
  /** The latest run's id: its undo journal says whether it changed files. */
  private runId: string | null = null;
  private ticker: ReturnType<typeof setInterval> | null = null;
  private quitArmed = false;
  /** Set when the layout changed since the last full frame: a quick frame would draw the input alone, in its new place. */
  private relaidOut = false;
  /** The letter that opened an overlay from the empty input: a letter typed next closes it and both are typed ("please…"). */
  private typedThrough: string | null = null;
  /** Resolves once the MCP servers were started (or refused); runs wait for it. */
  private serversReady: Promise<void> | null = null;
  private serversStarted = false;
  private warning = "";
  private quit!: (code: number) => void;

  constructor(
    private readonly screen: Widgets.Screen,
    input: RawInput,
    private readonly session: Session,
    private readonly args: CliArgs,
    private saved: SavedSession,
  ) {
    this.finished = new Promise((resolve) => (this.quit = resolve));
    this.view = this.freshView();
    const l = this.layout();
    this.transcript = new TranscriptPane(screen, l.transcript);
    this.verdicts = new VerdictsPane(screen, l.verdicts);
    this.meters = new MetersPane(screen, l.meters ?? hidden());
    this.layers = new LayersPane(screen, l.layers ?? hidden());
    this.plan = new PlanPane(screen, l.plan ?? hidden());
    this.panes = { transcript: this.transcript, verdicts: this.verdicts, meters: this.meters };
    try {
      this.lock = readLock(session.workspace.root);
    } catch {
      // A broken lock shows every layer as unlocked; the drift findings say why.
    }
    this.layerStates = layerStates(this.lock, session.layers);
    const history = new History(historyPath(session.workspace.root), (text) => this.transcript.line(text, "notice"));
    this.composer = new Composer(screen, l.input, history, { commands: SLASH_NAMES, files: () => workspaceFiles(session.workspace.root) }, {
      submit: (message) => this.submit(message, history),
      resized: () => this.relayout(),
    });
    const composer = this.composer;
    this.inputLine = {
      get value() {
        return composer.editor.text;
      },
      set value(text: string) {
        composer.set(text);
      },
    };
    this.status = blessed.box({ parent: screen, ...l.status, tags: true, style: { bg: "blue", fg: "white" } });
    this.scheduler = new RenderScheduler((full) => this.paint(full));
    // blessed also redraws by itself (focus effects): those go through the scheduler too, so there is at most one render per frame.
    this.draw = screen.render.bind(screen);
    screen.render = () => this.scheduler.request();
    // Over the transcript only: the budgets and the verdicts stay in view while the person decides.
    this.modal = new ApprovalModal(screen, () => this.onModalChange(), () => this.layout().transcript);
    this.choice = new ModelChoice(screen, {
      session,
      baseUrl: args.baseUrl,
      note: (text) => {
        this.transcript.line(text, "notice");
        this.scheduler.request();
      },
      warn: (text) => {
        this.warning = text;
        this.scheduler.request();
      },
      redraw: () => this.scheduler.request(),
      running: () => this.running !== null,
    });
    this.overlay = new Overlay(screen, () => this.scheduler.request());

    screen.on("keypress", (ch: string | undefined, key: Widgets.Events.IKeyEventArg) => this.onKey(ch, key));
    // A paste or an Alt+Enter always lands in the input, wherever the focus was.
    input.on("paste", (text: string) => this.toInput(() => composer.paste(text)));
    input.on("newline", () => this.toInput(() => composer.newline()));
    screen.on("resize", () => this.relayout());

    this.transcript.line(`glassbox · ${sanitize(session.model.name)} · workspace ${sanitize(session.workspace.root)}`, "notice");
    if (session.sandbox.kind === "none") this.transcript.line(`Checks run UNSANDBOXED: ${sanitize(session.sandbox.reason)}.`, "notice");
    this.restore();
    this.transcript.line("Type a task and press Enter. ? shows the keys, / the commands.", "notice");
    composer.box.focus();
    // Benchmark hook for scripts/bench-tui.ts: does nothing unless GLASSBOX_BENCH_REPORT is set.
    benchHook(screen, this.transcript);
    this.paint();
  }

  /** Starts the MCP servers, asking about untrusted ones and quarantined tools in the modal. */
  startServers(): void {
    if (!this.session.mcp.servers.length) {
      this.serversStarted = true;
      return;
    }
    this.warning = "starting MCP servers…";
    // A server's tools can change between runs (list_changed, a crash): the layers pane follows.
    this.session.mcp.onChange = () => this.relayout();
    this.serversReady = connectServers(this.session, mcpQuestions(this.modal, this.session.workspace.root))
      .catch((error) => void this.transcript.line(`MCP servers failed to start: ${(error as Error).message}`, "notice"))
      .then(() => {
        this.serversStarted = true;
        // The servers' instructions joined the layers.
        this.layerStates = layerStates(this.lock, this.session.layers);
        if (this.warning === "starting MCP servers…") this.warning = "";
        this.relayout();
      });
  }

  /**
   * Enter on the input. A slash command runs (never sent, never kept in the history); a message
   * is kept in the history, gets the text of the files it names with @, and is sent, or queued
   * while a run is active. False keeps the text in the input (a mistake to fix, no model yet).
   */
  private submit(typed: string, history: History): boolean {
    // Blank lines around it go; a pasted block keeps the indentation of its first line.
    const text = typed.replace(/^\s*\n/, "").trimEnd();
    if (!text) return false;
    this.warning = "";
    if (text.startsWith("/")) {
      const problem = runSlash(text, this.slashHost());
      this.warning = problem ?? this.warning;
      this.scheduler.request();
      return problem === null;
    }
    history.add(typed);
    if (this.session.spec === null) {
      // Nothing to send it to yet: the text stays in the input, and the picker asks again.
      this.warning = "choose a model first, then Enter sends the message";
      void this.choice.pick(false);
      this.scheduler.request();
      return false;
    }
    const attached = attachFiles(text, this.session.workspace, this.session.limits.max_result_chars);
    if (!attached.ok) {
      this.warning = attached.problem;
      this.scheduler.request();
      return false;
    }
    if (attached.files.length) this.transcript.line(`attached: ${attached.files.map(sanitize).join(", ")}`, "notice");
    if (this.running) {
      this.queued.push(attached.message);
      this.transcript.line(`queued, sent when this run stops: ${sanitize(text.split("\n")[0]!)}${text.includes("\n") ? " …" : ""}`, "notice");
      this.scheduler.request();
      return true;
    }
    this.send(attached.message);
    return true;
  }

  /** Starts a run for a task or a follow-up. One run at a time. */
  send(text: string): void {
    if (!this.serversStarted) {
      void this.serversReady?.then(() => this.send(text));
      return;
    }
    if (this.running) {
      this.queued.push(text);
      return this.scheduler.request();
    }
    const drift = this.session.drift;
    if (drift?.length && !this.driftAccepted) {
      // The layers changed since prompts.lock: the person sees what changed before any run.
      void this.modal.confirm("prompt layers changed", "The system prompt differs from prompts.lock. Start the run anyway?", drift).then((go) => {
        if (!go) {
          this.transcript.line("run not started: the prompt layers differ from prompts.lock (glassbox audit --check)", "notice");
          return this.scheduler.request();
        }
        this.driftAccepted = true;
        this.send(text);
      });
      return;
    }
    this.warning = "";
    this.quitArmed = false;
    const abort = new AbortController();
    this.running = abort;
    this.ticker = setInterval(() => this.scheduler.request(), 500);
    const run = startRun(this.session, text, abort.signal, this.saved, this.summarizeNext);
    this.summarizeNext = false;
    // After startRun, which puts the normal policy back for every other kind of run.
    interactiveJit();
    this.runId = run.runId;
    void (async () => {
      try {
        for await (const event of run.events) this.onEvent(event);
      } catch (error) {
        this.transcript.line(`glassbox failed: ${(error as Error).message}`, "notice");
      } finally {
        this.running = null;
        if (this.ticker) clearInterval(this.ticker);
        this.scheduler.request();
        const next = this.queued.shift();
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

  /** Before the first run: is the model server there? Says so, with the fix, in the status line. */
  async checkServer(args: CliArgs): Promise<void> {
    const problem = await serverProblem(this.session.model.name, args.baseUrl);
    if (!problem) return;
    this.warning = problem;
    // Also in the transcript, where it wraps: a narrow status line clips the fix.
    this.transcript.line(problem, "notice");
    this.scheduler.request();
  }


  /** A scripted model has no server to ask: the window the context manager works against is num_ctx. */
  private freshView(): RunView {
    return emptyView(this.session.limits, this.session.model.contextSize ? null : this.session.config.model_options.num_ctx);
  }

  /**
   * A continued session: the transcript, verdicts and meters drawn again from its saved events,
   * the plan from its last todo list. Said first: what was skipped, and a change of model.
   */
  private restore(): void {
    const restored = this.saved.restored;
    if (!restored) {
      this.transcript.line(`session ${this.saved.id}, saved as it goes (glassbox --continue reopens it)`, "notice");
      return;
    }
    // Replaying a long session is work that repeats, like a run: the JIT's normal policy.
    normalJit();
    const summary = summarize(restored);
    this.transcript.line(`session ${restored.id} restored: ${summary.runs} run(s) since ${shortTime(restored.startedAt)}`, "notice");
    for (const { event, at } of restored.events) this.onEvent(event, at);
    // A run cut off by the end of glassbox has no stop: its meters end where its last line was written.
    if (summary.lastStatus === "unfinished") this.view = { ...this.view, state: "unfinished", endedAt: restored.lastAt, streamStartedAt: null };
    for (const note of restoreNotes(restored)) this.transcript.line(note, "notice");
    // With no model named yet the picker asks; its choice is said where the model is shown.
    if (this.session.spec !== null && summary.model && summary.model !== this.session.model.name) this.transcript.line(`this session ran with ${sanitize(summary.model)}; it continues with ${sanitize(this.session.model.name)}`, "notice");
    this.transcript.line("── restored up to here: the next message continues this conversation ──", "notice");
    this.warning = "";
  }

  private onEvent(event: AgentEvent, now = Date.now()): void {
    this.view = fold(this.view, event, now);
    const warning = showEvent(event, this.panes, () => (this.runId ? changedFiles(this.session.workspace.root, this.runId) : 0));
    if (warning !== undefined) this.warning = warning;
    // A reply's last words are drawn at once, not at the pace of text pouring in.
    if (event.kind === "model_reply") this.scheduler.soon();
    else this.scheduler.request();
  }

  /**
   * Every key, in this order: the keys that work anywhere, an overlay, a question, the model
   * picker; then the input when it has the focus, or the focused pane.
   */
  private onKey(ch: string | undefined, key: Widgets.Events.IKeyEventArg): void {
    this.scheduler.expedite();
    if (key.full === "C-c") return this.onCtrlC();
    if (key.full === "C-l") return this.redrawAll();
    // blessed reports Enter twice, as "enter" and then as "return": the second is not a key of its own.
    if (key.name === "return") return;
    const onInput = this.screen.focused === this.composer.box;
    if (this.overlay.open) {
      const through = this.typedThrough;
      this.typedThrough = null;
      if (through && onInput && printable(ch)) {
        this.overlay.close();
        this.composer.set(through);
        this.composer.key(ch, key);
        return this.scheduler.request();
      }
      this.overlay.key(key.name);
      return;
    }
    if (key.name === "f1" && !this.choice.picker.open) return this.overlay.show("help", helpText());
    if (this.modal.open) {
      this.modal.key(key.name);
      return;
    }
    if (onInput) return this.inputKey(ch, key);
    if (this.choice.picker.open) {
      this.choice.picker.key(ch, key.name);
      return;
    }
    if (key.name === "escape") return this.focusInput();
    if (key.name === "tab") return this.cycleFocus();
    if (this.screen.focused === this.verdicts.box) {
      // A list of the calls: Enter opens the selected one's whole result.
      const result = key.name === "enter" ? this.verdicts.selectedResult() : null;
      if (result) return this.overlay.show(result.title, result.text);
      if (this.verdicts.key(key.name)) return this.scheduler.request();
    }
    if (key.name === "enter") return this.focusInput();
    if (this.singleKey(ch)) return;
    const page = this.transcript.pageSize();
    const moves: Record<string, number | "top" | "bottom"> = { pageup: -page, pagedown: page, up: -1, down: 1, home: "top", end: "bottom" };
    const move = moves[key.name];
    if (move === undefined) return;
    this.transcript.scroll(move);
    this.scheduler.request();
  }

  /** A key while the input has the focus: the picker's, a single key on the empty input, an edit, or Esc and Tab. */
  private inputKey(ch: string | undefined, key: Widgets.Events.IKeyEventArg): void {
    if (this.choice.inputKey(ch, key.name, this.inputLine)) return;
    if (this.composer.empty && this.singleKey(ch)) return;
    if (this.composer.key(ch, key)) return this.scheduler.request();
    if (key.name === "escape") return this.interrupt();
    if (key.name === "tab") return this.cycleFocus();
  }

  /** `?` help, `u` undo (between runs), `p` the prompt: on an empty input or in a pane. */
  private singleKey(ch: string | undefined): boolean {
    if (ch === "?") this.overlay.show("help", helpText());
    else if (ch === "u" && !this.running) this.undoLastRun();
    else if (ch === "p") {
      this.showPrompt();
      // "please …": the next letter closes the prompt and both letters are typed.
      if (this.screen.focused === this.composer.box) this.typedThrough = "p";
    } else return false;
    return true;
  }

  /** A paste or an Alt+Enter: the input takes the focus back and the text. Not while a question or the picker has the keys. */
  private toInput(edit: () => void): void {
    if (this.modal.open || this.choice.picker.open) return;
    this.overlay.close();
    this.scheduler.expedite();
    this.focusInput();
    edit();
  }

  private focusInput(): void {
    this.composer.box.focus();
    this.scheduler.request();
  }

  private showPrompt(): void {
    this.overlay.show("system prompt", this.promptWithBoundaries());
  }

  /** `u`: the latest run that changed files, its files, y/n (src/tui/undo-prompt.ts). */
  private undoLastRun(): void {
    void offerUndo(this.session.workspace.root, this.modal, (line) => this.transcript.line(line, "notice"))
      .catch((error) => this.transcript.line(`undo failed: ${(error as Error).message}`, "notice"))
      .finally(() => this.scheduler.request());
  }

  /** What the slash commands (src/tui/slash-commands.ts) may do. */
  private slashHost(): SlashHost {
    const say = (text: string) => this.transcript.line(text, "notice");
    return {
      running: () => this.running !== null,
      say,
      overlay: (title, text) => this.overlay.show(title, text),
      help: () => this.overlay.show("help", helpText()),
      pickModel: () => void this.choice.pick(false),
      undo: () => this.undoLastRun(),
      sessions: () => sessionLines(this.session.workspace.root),
      newSession: () => this.newSession(),
      compact: () => this.compact(),
      allow: (text) => {
        try {
          const rule = parseRule(text, TOOL_NAMES, this.session.mcp.servers.map((server) => server.name));
          this.session.checkpoint.allowForSession(rule);
          say(`allowed for this session without asking: ${sanitize(rule.text)} (deny rules still win)`);
        } catch (error) {
          this.warning = `/allow: ${(error as Error).message}`;
        }
      },
      limits: () => this.session.limits,
      prompt: () => this.showPrompt(),
      quit: () => this.exit(),
    };
  }

  /**
   * /compact: the context manager summarizes the conversation at the next message's first
   * request (a summary is a model call, and the loop makes every model call of a session).
   */
  private compact(): void {
    if (!this.session.config.components.context_management) {
      this.warning = "/compact: context management is off in this workspace's config (components.context_management)";
    } else if (!summaryRange(this.saved.record, this.saved.context.summary, this.session.config.context.keep_turns)) {
      this.transcript.line(`/compact: nothing to summarize yet (the last ${this.session.config.context.keep_turns} turns always stay whole)`, "notice");
    } else {
      this.summarizeNext = true;
      this.transcript.line("/compact: the model summarizes the conversation so far when the next message is sent (its last turns stay whole)", "notice");
    }
  }

  /** /new: a new saved session; the old one stays in `glassbox sessions`. The plan and the meters start over too. */
  private newSession(): void {
    const old = this.saved.id;
    this.saved = openSaved(this.session, {});
    this.summarizeNext = false;
    this.session.checkpoint.todo.splice(0);
    this.view = this.freshView();
    this.meters.startRun();
    this.transcript.line(`── new session ${this.saved.id}: the model starts a fresh conversation (${old} stays in glassbox sessions) ──`, "notice");
  }

  /** Esc on the input: stops the running reply; otherwise nothing. */
  private interrupt(): void {
    if (!this.running) return;
    this.running.abort();
    this.warning = "stopping the run…";
    this.scheduler.request();
  }

  private onCtrlC(): void {
    if (this.running && !this.quitArmed) {
      this.quitArmed = true;
      this.warning = "a run is active: Ctrl-C again quits (Esc only stops the run)";
      return this.scheduler.request();
    }
    this.exit();
  }

  private exit(): void {
    this.running?.abort();
    this.modal.close("no");
    this.choice.picker.close();
    this.scheduler.stop();
    if (this.ticker) clearInterval(this.ticker);
    this.screen.destroy();
    // The servers (and everything they started) go with the session.
    void this.session.mcp.close().finally(() => this.quit(0));
  }

  /** Forgets what the terminal shows and draws every cell: frames otherwise write only what changed. */
  private redrawAll(): void {
    this.screen.realloc();
    this.scheduler.soon();
  }

  private cycleFocus(): void {
    const order: Widgets.BlessedElement[] = [this.composer.box, this.transcript.box, this.verdicts.box];
    order[(order.indexOf(this.screen.focused as Widgets.BlessedElement) + 1) % order.length]!.focus();
    this.scheduler.request();
  }

  private onModalChange(): void {
    // A question takes the keys: an overlay over it would hide it.
    if (this.modal.open) this.overlay.close();
    // The status line says "waiting for approval" while the modal is open (paint); the run's own state stays as it was.
    this.scheduler.request();
  }

  private promptWithBoundaries(): string {
    return `${assembleMarked(this.session.layers)}\n(the model gets the plain join, without these markers)`;
  }

  private layout(): Layout {
    return layout(this.screen.width as number, this.screen.height as number, layerPaneRows(this.session.layers.length, this.session.mcp.status()), this.composer?.height ?? 1);
  }

  private relayout(): void {
    const l = this.layout();
    this.transcript.place(l.transcript);
    this.verdicts.place(l.verdicts);
    this.meters.place(l.meters ?? hidden());
    this.layers.place(l.layers ?? hidden());
    this.plan.place(l.plan ?? hidden());
    this.composer.place(l.input);
    Object.assign(this.status, l.status);
    this.modal.place();
    this.relaidOut = true;
    this.scheduler.request();
  }

  /**
   * `full` false: a quick frame for a key's echo, which draws the input line alone; the rest
   * (the transcript, and the status line, which must never run ahead of it) waits for the full
   * frame at its pace. With a question or an overlay on screen every frame is a full one.
   */
  private paint(full = true): void {
    if (!full && !this.relaidOut && !this.modal.open && !this.overlay.open && !this.choice.picker.open) return drawOnly(this.screen, [this.composer.box]);
    this.relaidOut = false;
    // Streamed text goes to the saved session before it reaches the screen.
    this.saved.flush();
    this.transcript.draw();
    this.scheduler.frameMs = paceFor(this.transcript.rowsPerSecond());
    this.status.setContent(this.statusLine());
    this.verdicts.draw();
    this.meters.draw(meters(this.view, Date.now()));
    this.layers.draw(
      this.session.layers.map((layer, index) => ({ ...layer, state: this.layerStates[index] ?? "unlocked" })),
      this.session.mcp.status(),
    );
    this.plan.draw(this.session.checkpoint.todo);
    this.draw();
  }

  private statusLine(): string {
    const state = this.modal.open ? "waiting for approval" : this.running && this.view.state === "starting" ? "streaming" : this.view.state;
    const { session } = this;
    return statusLine({ state, queued: this.queued.length, warning: this.warning, model: session.model.name, workspace: session.workspace.root, sandbox: session.sandbox });
  }
}

function printable(ch: string | undefined): ch is string {
  return ch !== undefined && ch >= " " && ch !== "\x7f";
}

function hidden() {
  return { left: 0, top: 0, width: 1, height: 0 };
}
