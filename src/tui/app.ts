import type { CliArgs } from "../cli/args.ts";
import { sandboxBadge } from "./sandbox-badge.ts";
import { connectServers, openSession, startRun, type Session } from "../session/session.ts";
import { parseModelSpec } from "../session/model-spec.ts";
import type { AgentEvent } from "../core/events.ts";
import { openSaved, restoreNotes, shortTime, summarize, type SavedSession } from "../session/store.ts";
import { fetchJson } from "../model/http.ts";
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
import { safeTagged, sanitize } from "./sanitize.ts";
import { ModelChoice } from "./model-choice.ts";
import { onInputKey, type InputLine } from "./input-keys.ts";
import { offerUndo } from "./undo-prompt.ts";
import { changedFiles } from "../undo/journal.ts";
import { probeSandboxAhead } from "../sandbox/detect.ts";
import { interactiveJit, normalJit } from "../platform/jit.ts";

export interface TuiOptions {
  /** Start the args' task at once (the demo). */
  autoStart?: boolean;
  /** Makes the arguments once the terminal is known to work (the demo's temporary workspace). */
  prepare?: () => CliArgs;
}

const HELP = `glassbox — keys

Enter        send the input line (the task, or a follow-up once a run has stopped)
y / n / a    answer an approval: yes, no, always allow that tool for this session
Esc          stop the running model at once (leaves the input line when typing)
Tab          move focus: input → transcript → tool verdicts
PgUp PgDn    scroll the focused pane; Home / End jump (End follows the stream again)
p            show the full system prompt, each layer marked
m            (on an empty input line, between runs) choose the model: what answers on this machine
u            (on an empty input line, between runs) undo the last run that changed files: shows them, asks y/n
? / F1       this help (? on an empty input line; F1 anywhere)
Ctrl-L       draw the whole screen again (after another program wrote over it)
Ctrl-C       quit (asks first while a run is active; a second Ctrl-C forces)

Everything the model writes and every tool result is shown escaped: control characters and
escape sequences appear as ^[ or <U+202E>, never reach the terminal.`;

/** How long after a run ends the TUI gives memory back: after the run's last frames are drawn. */
const IDLE_COLLECT_MS = 1000;
/** How long after the first frame the TUI gives back what starting it left behind. */
const STARTUP_COLLECT_MS = 100;

const NO_SERVER_FIX = "start llama-server or ollama serve, check --model, or try glassbox --demo";

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
  const screen = createScreen();
  const app = new TuiApp(screen, session, args, saved);
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
  /** Set once the person has seen the prompt drift and chose to go on. */
  private driftAccepted = false;
  /** Each layer against prompts.lock, read once like the layers themselves. */
  private layerStates: ReturnType<typeof layerStates>;
  private readonly lock: ReturnType<typeof readLock> = null;
  private readonly input: Widgets.TextboxElement;
  private readonly status: Widgets.BoxElement;
  private readonly scheduler: RenderScheduler;
  private readonly draw: () => void;
  private view: RunView;
  private running: AbortController | null = null;
  /** The latest run's id: its undo journal says whether it changed files. */
  private runId: string | null = null;
  private ticker: ReturnType<typeof setInterval> | null = null;
  private quitArmed = false;
  /** Resolves once the MCP servers were started (or refused); runs wait for it. */
  private serversReady: Promise<void> | null = null;
  private serversStarted = false;
  private warning = "";
  private quit!: (code: number) => void;

  constructor(
    private readonly screen: Widgets.Screen,
    private readonly session: Session,
    private readonly args: CliArgs,
    private readonly saved: SavedSession,
  ) {
    this.finished = new Promise((resolve) => (this.quit = resolve));
    // A scripted model has no server to ask: the window the context manager works against is num_ctx.
    this.view = emptyView(session.limits, session.model.contextSize ? null : session.config.model_options.num_ctx);
    const l = this.layout();
    this.transcript = new TranscriptPane(screen, l.transcript);
    this.verdicts = new VerdictsPane(screen, l.verdicts);
    this.meters = new MetersPane(screen, l.meters ?? hidden());
    this.layers = new LayersPane(screen, l.layers ?? hidden());
    this.plan = new PlanPane(screen, l.plan ?? hidden());
    try {
      this.lock = readLock(session.workspace.root);
    } catch {
      // A broken lock shows every layer as unlocked; the drift findings say why.
    }
    this.layerStates = layerStates(this.lock, session.layers);
    this.input = blessed.textbox({ parent: screen, ...l.input, border: "line", label: " message (Enter sends) ", style: { border: { fg: "gray" }, focus: { border: { fg: "cyan" } } } });
    this.status = blessed.box({ parent: screen, ...l.status, tags: true, style: { bg: "blue", fg: "white" } });
    this.scheduler = new RenderScheduler((full) => this.paint(full));
    // blessed also redraws by itself (focus effects, every key typed in the input line): those go
    // through the scheduler too, so there is at most one render per frame.
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
    // A key's echo never waits for the frame pace, not even while text pours in.
    onInputKey(this.input, (ch, name, line) => (this.scheduler.expedite(), this.choice.inputKey(ch, name, line) || this.inputCommand(ch, line)));
    this.overlay = new Overlay(screen, () => this.onOverlayChange());

    // While the input line reads keys, only these still reach the screen's handler.
    (screen as unknown as { ignoreLocked: string[] }).ignoreLocked = ["C-c", "C-l", "escape", "tab", "f1"];
    screen.on("keypress", (ch: string | undefined, key: Widgets.Events.IKeyEventArg) => this.onKey(ch, key));
    screen.on("resize", () => this.relayout());

    this.transcript.line(`glassbox · ${sanitize(session.model.name)} · workspace ${sanitize(session.workspace.root)}`, "notice");
    if (session.sandbox.kind === "none") this.transcript.line(`Checks run UNSANDBOXED: ${sanitize(session.sandbox.reason)}.`, "notice");
    this.restore();
    this.transcript.line("Type a task and press Enter. ? shows the keys.", "notice");
    this.startTyping();
    // Benchmark hook for scripts/bench-tui.ts: does nothing unless GLASSBOX_BENCH_REPORT is set.
    benchHook(screen, this.transcript);
    this.paint();
  }

  private typing = false;
  private resumeTyping = false;

  /** The input line reads keys until Enter (send) or Esc; while it does, letters are text, not commands. */
  private startTyping(): void {
    if (this.typing) return;
    // A question or an overlay on screen takes the keys first; typing resumes when it closes.
    if (this.modal.open || this.overlay.open) {
      this.resumeTyping = true;
      return;
    }
    this.typing = true;
    this.input.focus();
    this.input.readInput((_error: unknown, value?: string | null) => {
      const wasTyping = this.typing;
      this.typing = false;
      if (!wasTyping || value == null) return this.scheduler.request();
      // blessed compares against the last value it drew, which typing does not update: sync it, then clear.
      this.input.setValue(value);
      this.input.clearValue();
      if (value.trim()) this.send(value.trim());
      this.startTyping();
    });
    this.scheduler.request();
  }

  private stopTyping(): void {
    if (!this.typing) return;
    // Cleared first, so the cancelled read is not taken for a message.
    this.typing = false;
    const input = this.input as unknown as { cancel(): void; _reading: boolean; __listener?: (...args: unknown[]) => void; removeListener(event: string, listener: unknown): void };
    input.cancel();
    // blessed attaches the reading listener one setImmediate after readInput: a read cancelled
    // sooner (an approval that arrives at once) would leave it attached, and every key typed
    // afterwards would be typed twice. Ours runs after blessed's and detaches it.
    setImmediate(() => {
      if (input._reading || !input.__listener) return;
      input.removeListener("keypress", input.__listener);
      delete input.__listener;
    });
    this.transcript.box.focus();
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
    // A tick later: the input line finishes setting up its key listener first (blessed adds it on
    // the next tick, and a question cancelling it before then would leave that listener doubled).
    this.serversReady = new Promise((resolve) => setImmediate(resolve))
      .then(() => connectServers(this.session, mcpQuestions(this.modal, this.session.workspace.root)))
      .catch((error) => void this.transcript.line(`MCP servers failed to start: ${(error as Error).message}`, "notice"))
      .then(() => {
        this.serversStarted = true;
        // The servers' instructions joined the layers.
        this.layerStates = layerStates(this.lock, this.session.layers);
        if (this.warning === "starting MCP servers…") this.warning = "";
        this.relayout();
      });
  }

  /** Starts a run for a task or a follow-up. One run at a time. */
  send(text: string): void {
    if (!this.serversStarted) {
      void this.serversReady?.then(() => this.send(text));
      return;
    }
    if (this.running) {
      this.warning = "a run is active: wait for it, or press Esc to stop it";
      return this.scheduler.request();
    }
    if (this.session.spec === null) {
      // Nothing to send it to yet: the text goes back to the input line, and the picker asks again.
      this.input.setValue(text);
      this.warning = "choose a model first, then Enter sends the message";
      void this.choice.pick(false);
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
    const run = startRun(this.session, text, abort.signal, this.saved);
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
        this.collectWhenIdle();
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
    const name = this.session.model.name;
    if (name.startsWith("scripted:")) return;
    try {
      const spec = parseModelSpec(name, args.baseUrl);
      if (spec.kind === "scripted") return;
      const probe = spec.kind === "llamacpp" ? `${spec.baseUrl}/health` : `${spec.baseUrl}/api/tags`;
      const answer = await fetchJson(probe, undefined, AbortSignal.timeout(3000), 3000);
      if (answer.status === 0 || answer.status >= 500) throw new Error(answer.excerpt);
    } catch {
      this.warning = `no model server answers for ${name}: ${NO_SERVER_FIX}`;
      // Also in the transcript, where it wraps: a narrow status line clips the fix.
      this.transcript.line(this.warning, "notice");
      this.scheduler.request();
    }
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
    const t = this.transcript;
    switch (event.kind) {
      case "run_start":
        t.line(`› ${event.task}`, "user");
        this.meters.startRun();
        break;
      case "model_request":
        t.buffer.newline();
        break;
      case "model_delta":
        t.append(event.text, event.channel === "thinking" ? "thinking" : "assistant");
        break;
      case "model_notice":
        t.line(`note: ${event.text}`, "notice");
        this.verdicts.note(event.text);
        break;
      case "model_reply":
        if (event.finish_reason === "length") t.line("[the reply was cut off by the reply cap, max_tokens]", "notice");
        t.buffer.newline();
        break;
      case "tool_call": {
        t.line(`⚙ ${event.tool} ${event.arguments}`, "tool");
        const lines = event.result.split("\n");
        const preview = lines.slice(0, 4).join("\n") + (lines.length > 4 ? `\n… ${lines.length - 4} more lines (${event.result_chars} chars)` : "");
        t.line(`  ${event.decision}: ${preview}`, "result");
        this.verdicts.add(event);
        break;
      }
      case "stall":
        this.verdicts.note(`stall ${event.rule}: ${event.message}`, "yellow");
        break;
      case "gate":
        this.verdicts.note(`gate: finish ${event.allowed ? "allowed" : "refused"}: ${event.reason}`, event.allowed ? "green" : "yellow");
        break;
      case "budget_warning":
        this.verdicts.note(`budget: the ${event.budget} is nearly used; the model was told to wrap up`, "yellow");
        break;
      case "context_elided":
        this.verdicts.note(`context: ${event.results} old result(s) cut, ${event.chars_before} → ${event.chars_after} chars`, "cyan");
        break;
      case "context_summarized":
        t.line(`[${event.messages} earlier messages replaced by the model's own summary, ${event.chars_before} → ${event.chars_after} chars]`, "notice");
        this.verdicts.note(`context: summary of ${event.messages} messages, ${event.chars_before} → ${event.chars_after} chars`, "cyan");
        break;
      case "prompt_drift":
        t.line(`prompt layers differ from prompts.lock: ${event.findings.join("; ")}`, "notice");
        break;
      case "mcp_server":
        this.verdicts.note(`MCP ${event.server}: ${event.state}${event.reason ? `: ${event.reason}` : ""}`, event.state === "running" ? "cyan" : "red");
        break;
      case "mcp_untrusted":
      case "tool_quarantined":
      case "tool_not_offered":
        t.line(event.reason, "notice");
        this.verdicts.note(event.reason, "red");
        break;
      case "truncation_suspected":
        this.verdicts.note(`server counted ${event.reported_prompt_tokens} prompt tokens of ~${event.estimated_prompt_tokens} sent: prompt probably cut (raise num_ctx)`, "red");
        break;
      case "stop": {
        t.line(`■ stopped: ${event.status} — ${event.reason}`, "notice");
        const changed = this.runId ? changedFiles(this.session.workspace.root, this.runId) : 0;
        if (changed) t.line(`this run changed ${changed} file(s): u on an empty input line undoes them`, "notice");
        this.warning = ""; // the run's own notices ("stopping the run…", "Ctrl-C again quits") end with it
        if (event.status === "model_error" && /cannot reach|connection refused|does not resolve/.test(event.reason)) {
          // Short enough to fit the status line; the stop line above has the exact error.
          this.warning = `no model server answers: ${NO_SERVER_FIX}; Enter retries`;
        }
        break;
      }
    }
    // A reply's last words are drawn at once, not at the pace of text pouring in.
    if (event.kind === "model_reply") this.scheduler.soon();
    else this.scheduler.request();
  }

  private onKey(ch: string | undefined, key: Widgets.Events.IKeyEventArg): void {
    this.scheduler.expedite();
    if (key.full === "C-c") return this.onCtrlC();
    if (key.full === "C-l") return this.redrawAll();
    if (this.overlay.open) {
      this.overlay.key(key.name);
      return;
    }
    if (key.name === "f1" && !this.choice.picker.open) return this.showOverlay("help", HELP);
    if (this.modal.open) {
      this.modal.key(key.name);
      return;
    }
    if (this.choice.picker.open) {
      // While the input line reads, its hook gives the picker the keys (Esc and Tab included).
      if (!this.typing) this.choice.picker.key(ch, key.name);
      return;
    }
    if (key.name === "escape") return this.interrupt();
    if (key.name === "tab") return this.cycleFocus();
    if (this.typing) return;
    if (key.name === "enter" || key.name === "return") return this.startTyping();
    if (ch === "?") return this.showOverlay("help", HELP);
    if (ch === "u" && !this.running) return this.undoLastRun();
    if (ch === "p") return this.overlay.show("system prompt", this.promptWithBoundaries());
    const page = this.transcript.pageSize();
    const moves: Record<string, number | "top" | "bottom"> = { pageup: -page, pagedown: page, up: -1, down: 1, home: "top", end: "bottom" };
    const move = moves[key.name];
    if (move === undefined) return;
    if (this.screen.focused === this.verdicts.box && typeof move === "number") this.verdicts.scroll(move);
    else this.transcript.scroll(move);
    this.scheduler.request();
  }

  /** Keys the input line reads: on an empty line, ? opens the help and u (between runs) the undo question. */
  private inputCommand(ch: string | undefined, line: InputLine): boolean {
    if (line.value !== "") return false;
    if (ch === "?") this.showOverlay("help", HELP);
    else if (ch === "u" && !this.running) this.undoLastRun();
    else return false;
    return true;
  }

  /** An overlay takes the keys from the input line; typing resumes when it closes. */
  private showOverlay(title: string, text: string): void {
    if (this.typing) {
      this.stopTyping();
      this.resumeTyping = true;
    }
    this.overlay.show(title, text);
  }

  private onOverlayChange(): void {
    if (!this.overlay.open && !this.modal.open && this.resumeTyping) {
      this.resumeTyping = false;
      this.startTyping();
    }
    this.scheduler.request();
  }

  /** `u`: the latest run that changed files, its files, y/n (src/tui/undo-prompt.ts). */
  private undoLastRun(): void {
    if (this.typing) {
      this.stopTyping();
      this.resumeTyping = true;
    }
    void offerUndo(this.session.workspace.root, this.modal, (line) => this.transcript.line(line, "notice"))
      .catch((error) => this.transcript.line(`undo failed: ${(error as Error).message}`, "notice"))
      .finally(() => {
        if (!this.modal.open && this.resumeTyping) {
          this.resumeTyping = false;
          this.startTyping();
        }
        this.scheduler.request();
      });
  }

  private interrupt(): void {
    if (this.running) {
      this.running.abort();
      this.warning = "stopping the run…";
    }
    this.stopTyping();
    this.scheduler.request();
  }

  private onCtrlC(): void {
    if (this.running && !this.quitArmed) {
      this.quitArmed = true;
      this.warning = "a run is active: Ctrl-C again quits (Esc only stops the run)";
      return this.scheduler.request();
    }
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
    const order: Widgets.BlessedElement[] = [this.input, this.transcript.box, this.verdicts.box];
    const next = order[(order.indexOf(this.screen.focused as Widgets.BlessedElement) + 1) % order.length]!;
    if (next === this.input) return this.startTyping();
    this.stopTyping();
    next.focus();
    this.scheduler.request();
  }

  private onModalChange(): void {
    // The modal takes the keys: the input line must not swallow y / n / a. Typing resumes after.
    if (this.modal.open) this.overlay.close();
    if (this.modal.open && this.typing) {
      this.stopTyping();
      this.resumeTyping = true;
    } else if (!this.modal.open && this.resumeTyping) {
      this.resumeTyping = false;
      this.startTyping();
    }
    // The status line says "waiting for approval" while the modal is open (paint); the run's own state stays as it was.
    this.scheduler.request();
  }

  private promptWithBoundaries(): string {
    return `${assembleMarked(this.session.layers)}\n(the model gets the plain join, without these markers)`;
  }

  private layout(): Layout {
    return layout(this.screen.width as number, this.screen.height as number, layerPaneRows(this.session.layers.length, this.session.mcp.status()));
  }

  private relayout(): void {
    const l = this.layout();
    this.transcript.place(l.transcript);
    this.verdicts.place(l.verdicts);
    this.meters.place(l.meters ?? hidden());
    this.layers.place(l.layers ?? hidden());
    this.plan.place(l.plan ?? hidden());
    Object.assign(this.input, l.input);
    Object.assign(this.status, l.status);
    this.modal.place();
    this.scheduler.request();
  }

  /**
   * `full` false: a quick frame for a key's echo, which draws the input line alone; the rest
   * (the transcript, and the status line, which must never run ahead of it) waits for the full
   * frame at its pace. With a question or an overlay on screen every frame is a full one.
   */
  private paint(full = true): void {
    if (!full && !this.modal.open && !this.overlay.open && !this.choice.picker.open) return drawOnly(this.screen, [this.input]);
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
    const state = this.modal.open ? "waiting for approval" : this.running ? (this.view.state === "starting" ? "streaming" : this.view.state) : this.view.state;
    const where = `${safeTagged(this.session.model.name)} · ${safeTagged(shortPath(this.session.workspace.root))} · ${sandboxBadge(this.session.sandbox)}`;
    // A warning goes first, right after the state, so a narrow terminal clips the model and path, not the fix.
    return this.warning
      ? ` {bold}${safeTagged(state)}{/bold} · {yellow-fg}${safeTagged(this.warning)}{/yellow-fg} · ${where}`
      : ` ${where} · {bold}${safeTagged(state)}{/bold} · Enter send · Esc stop · Tab panes · ? help · Ctrl-C quit`;
  }
}

function hidden() {
  return { left: 0, top: 0, width: 1, height: 0 };
}

function shortPath(path: string): string {
  const home = process.env.HOME;
  const shown = home && path.startsWith(home) ? "~" + path.slice(home.length) : path;
  return shown.length > 40 ? "…" + shown.slice(-39) : shown;
}
