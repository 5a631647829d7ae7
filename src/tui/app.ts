import { READ_ONLY_UNENFORCED } from "../core/policy.ts";
import { connectServers, openSession, type Session, type SessionArgs } from "../session/session.ts";
import { profileFor } from "../session/profile.ts";
import { startRun } from "../session/start-run.ts";
import { openSaved, type SavedSession, type SessionChoice } from "../session/store.ts";
import { assembleMarked, type PromptLayer } from "../prompt/layers.ts";
import { mapLayer } from "../session/map-layer.ts";
import { layerStates, readLock } from "../prompt/lock.ts";
import { ApprovalModal } from "./approval-modal.ts";
import { benchHook } from "./bench-hook.ts";
import type { Widgets } from "./blessed.ts";
import { createScreen, drawOnly, onSignalExit, writeNow } from "./screen.ts";
import { terminalProblem } from "./terminfo.ts";
import { layout, type Layout } from "./layout.ts";
import { Overlay } from "./overlay.ts";
import { layerPaneRows, mapLayerRow, type LayerState } from "./panes/layers-pane.ts";
import { ScreenPanes } from "./panes/screen-panes.ts";
import { mcpQuestions } from "./mcp-questions.ts";
import { RenderScheduler, paceFor } from "./render-scheduler.ts";
import { meters } from "./run-view.ts";
import { sanitize } from "./sanitize.ts";
import { ModelChoice } from "./model-choice.ts";
import { offerUndo } from "./undo-prompt.ts";
import { Composer } from "./composer/composer.ts";
import { History, historyPath } from "./composer/history.ts";
import { RawInput, bracketedPaste } from "./composer/raw-input.ts";
import { statusLine } from "./status-line.ts";
import { showEvent } from "./event-view.ts";
import { serverProblem } from "./server-check.ts";
import { SLASH_NAMES, type SlashHost } from "./slash-commands.ts";
import { submitInput, type SubmitHost } from "./submit.ts";
import { sessionLines } from "../session/session-table.ts";
import { parseRule } from "../core/policy.ts";
import { TOOL_NAMES } from "../tools/index.ts";
import { workspaceFiles } from "../tools/tree/walk.ts";
import { probeSandboxAhead } from "../sandbox/detect.ts";
import { interactiveJit } from "../platform/jit.ts";
import { RunControl } from "./run-control.ts";
import { KeyRouter } from "./key-router.ts";
import { OwnServer } from "./own-server.ts";

/** What the TUI is opened from: the command line's options (CliArgs fits). */
export type TuiArgs = SessionArgs & SessionChoice & { task: string | null };

export interface TuiOptions {
  /** Start the args' task at once (the demo). */
  autoStart?: boolean;
  /** Makes the arguments once the terminal is known to work (the demo's temporary workspace). */
  prepare?: () => TuiArgs;
}

/** How long after the first frame the TUI gives back what starting it left behind. */
const STARTUP_COLLECT_MS = 100;

/** The interactive split-pane TUI. Resolves with the exit code when the user quits. */
export async function runTui(args: TuiArgs, options: TuiOptions = {}): Promise<number> {
  const problem = terminalProblem();
  if (problem) {
    console.error(`glassbox: ${problem}`);
    return 1;
  }
  args = options.prepare?.() ?? args;
  let modal: ApprovalModal | null = null;
  await probeSandboxAhead();
  // Usage and config mistakes surface here, before the screen takes over the terminal.
  const session = openSession(args, (request) => modal!.ask(request), undefined, { profile: await profileFor(args) });
  const saved = openSaved(session, args);
  // Pastes and Alt+Enter are taken out of the terminal's input before blessed parses it.
  const input = new RawInput();
  const screen = createScreen({ input: input as unknown as Widgets.IScreenOptions["input"] });
  bracketedPaste(screen);
  const app = new TuiApp(screen, input, session, args, saved);
  modal = app.modal;
  app.runs.collectWhenIdle(STARTUP_COLLECT_MS);
  app.startServers();
  if (options.autoStart && args.task) app.runs.send(args.task);
  else if (session.spec === null) void app.choice.find();
  else void app.checkServer(args);
  return app.finished;
}

class TuiApp {
  readonly modal: ApprovalModal;
  readonly choice: ModelChoice;
  readonly runs: RunControl;
  readonly finished: Promise<number>;
  /** The llama-server of a gguf: model. */
  private readonly server: OwnServer;
  private readonly overlay: Overlay;
  private readonly panes: ScreenPanes;
  private readonly composer: Composer;
  private readonly keys: KeyRouter;
  /** Each layer against prompts.lock, read once like the layers themselves. */
  private layerStates: ReturnType<typeof layerStates>;
  private readonly lock: ReturnType<typeof readLock>;
  /** The map layer (config repo_map.layer) as the last run started with it, or as a run would start with it. */
  private mapRow: (PromptLayer & { state: LayerState }) | null = null;
  private readonly scheduler: RenderScheduler;
  private readonly draw: () => void;
  /** Set when the layout changed since the last full frame: a quick frame would draw the input alone, in its new place. */
  private relaidOut = false;
  private warning = "";
  private readonly say = (text: string) => this.panes.transcript.line(text, "notice");
  private readonly warn = (text: string) => void (this.warning = text);
  private quit!: (code: number) => void;

  constructor(
    private readonly screen: Widgets.Screen,
    input: RawInput,
    private readonly session: Session,
    args: TuiArgs,
    saved: SavedSession,
  ) {
    this.finished = new Promise((resolve) => (this.quit = resolve));
    const l = this.layout();
    const panes = (this.panes = new ScreenPanes(screen, l));
    this.server = new OwnServer(session, { say: this.say, redraw: () => this.scheduler.request() });
    // SIGTERM and a closed terminal (SIGHUP) stop the server too, not only a quit.
    onSignalExit(() => this.shutdown());
    this.runs = this.runControl(saved);
    this.lock = lockOf(session.workspace.root);
    this.layerStates = layerStates(this.lock, session.layers);
    this.composer = this.makeComposer(l.input);
    this.scheduler = new RenderScheduler((full) => this.paint(full), { writeOut: () => writeNow(screen) });
    // blessed also redraws by itself (focus effects): those go through the scheduler too, so there is at most one render per frame.
    this.draw = screen.render.bind(screen);
    screen.render = () => this.scheduler.request();
    // Over the transcript only: the budgets and the verdicts stay in view while the person decides.
    this.modal = new ApprovalModal(screen, () => this.onModalChange(), () => this.layout().transcript);
    this.choice = this.modelChoice(args);
    this.overlay = new Overlay(screen, () => this.scheduler.request());
    const { composer, overlay, modal, choice, scheduler, runs } = this;
    this.keys = new KeyRouter({ screen, composer, transcript: panes.transcript, verdicts: panes.verdicts, overlay, modal, choice, scheduler, runs, undo: () => this.undoLastRun(), showPrompt: () => this.showPrompt(), exit: () => this.exit() });
    this.listen(input);
    this.greet();
  }

  /** Runs started, shown and confirmed through the panes and the modal. */
  private runControl(saved: SavedSession): RunControl {
    const { session, panes } = this;
    return new RunControl(session, saved, {
      start: (task, signal, saved, summarizeFirst) => {
        const run = startRun(session, task, signal, saved, summarizeFirst);
        // After startRun, which puts the normal policy back for every other kind of run.
        interactiveJit();
        return run;
      },
      confirm: (title, question, lines) => this.modal.confirm(title, question, lines),
      show: (event, changedFiles) => {
        // The run built its map layer just before this event: the pane shows that one (the map's own cache answers).
        if (event.kind === "run_start") this.refreshMapLayer();
        return showEvent(event, panes, changedFiles);
      },
      restartMeters: () => panes.meters.startRun(),
      say: this.say,
      warn: this.warn,
      redraw: (now) => (now ? this.scheduler.drawNow() : this.scheduler.request()),
      prepare: () => this.server.ensure(),
    });
  }

  /** The input: its history, completions of slash commands and workspace files, and what Enter does. */
  private makeComposer(place: Layout["input"]): Composer {
    const { session, screen } = this;
    const history = new History(historyPath(session.workspace.root), this.say);
    const submitHost: SubmitHost = { session, history, runs: this.runs, slash: this.slashHost(), pickModel: () => void this.choice.pick(false), say: this.say, warn: this.warn, redraw: () => this.scheduler.request() };
    return new Composer(screen, place, history, { commands: SLASH_NAMES, files: () => workspaceFiles(session.workspace.root) }, {
      submit: (message) => submitInput(message, submitHost),
      resized: () => this.relayout(),
    });
  }

  /** Finding and picking a model, its notes said in the transcript and the status line. */
  private modelChoice(args: TuiArgs): ModelChoice {
    return new ModelChoice(this.screen, {
      session: this.session,
      args,
      note: (text) => {
        this.say(text);
        this.scheduler.request();
      },
      warn: (text) => {
        this.warn(text);
        this.scheduler.request();
      },
      redraw: () => this.scheduler.request(),
      running: () => this.runs.active,
      modelChosen: () => void this.server.ensure(),
    });
  }

  /** Keys, pastes, Alt+Enter and resizes. */
  private listen(input: RawInput): void {
    const { screen, composer } = this;
    screen.on("keypress", (ch: string | undefined, key: Widgets.Events.IKeyEventArg) => this.keys.onKey(ch, key));
    // A paste or an Alt+Enter always lands in the input, wherever the focus was.
    input.on("paste", (text: string) => this.keys.toInput(() => composer.paste(text)));
    input.on("newline", () => this.keys.toInput(() => composer.newline()));
    screen.on("resize", () => this.relayout());
  }

  /** The first lines, the restored conversation, the focus in the input, the first frame. */
  private greet(): void {
    const { session } = this;
    this.say(`glassbox · ${sanitize(session.model.name)} · workspace ${sanitize(session.workspace.root)}`);
    if (session.sandbox.kind === "none") this.say(`Checks run UNSANDBOXED: ${sanitize(session.sandbox.reason)}; ${READ_ONLY_UNENFORCED}.`);
    this.runs.restore();
    this.say("Type a task and press Enter. ? shows the keys, / the commands.");
    this.composer.box.focus();
    // Benchmark hook for scripts/bench-tui.ts: does nothing unless GLASSBOX_BENCH_REPORT is set.
    benchHook(this.screen, this.panes.transcript);
    this.paint();
    this.refreshMapLayer();
  }

  /** The layers pane's map row, where the config asks for the layer: built after the first frame, the parsers loaded only then. */
  private refreshMapLayer(): void {
    if (!this.session.config.repo_map.layer) return;
    void mapLayer(this.session.workspace, this.session.config)
      .then((layer) => {
        this.mapRow = layer && mapLayerRow(layer);
        this.relayout();
      })
      .catch((error) => this.say(`the map layer could not be built: ${(error as Error).message}`));
  }

  /** Starts the MCP servers, asking about untrusted ones and quarantined tools in the modal; runs wait for them. */
  startServers(): void {
    if (!this.session.mcp.servers.length) return;
    this.warning = "starting MCP servers…";
    // A server's tools can change between runs (list_changed, a crash): the layers pane follows.
    this.session.mcp.onChange = () => this.relayout();
    this.runs.holdUntil(
      connectServers(this.session, mcpQuestions(this.modal, this.session.workspace.root))
        .catch((error) => void this.say(`MCP servers failed to start: ${(error as Error).message}`))
        .then(() => {
          // The servers' instructions joined the layers.
          this.layerStates = layerStates(this.lock, this.session.layers);
          if (this.warning === "starting MCP servers…") this.warning = "";
          this.relayout();
        }),
    );
  }

  /** Before the first run: is the model server there? Says so, with the fix, in the status line. A gguf: model's own server starts. */
  async checkServer(args: TuiArgs): Promise<void> {
    if (this.session.ownServer) return void this.server.ensure();
    const problem = await serverProblem(this.session.model.name, args.baseUrl);
    if (!problem) return;
    this.warning = problem;
    // Also in the transcript, where it wraps: a narrow status line clips the fix.
    this.say(problem);
    this.scheduler.request();
  }

  private showPrompt(): void {
    const show = (layers: PromptLayer[]) => this.overlay.show("system prompt", `${assembleMarked(layers)}\n(the model gets the plain join, without these markers)`);
    if (!this.session.config.repo_map.layer) return show(this.session.layers);
    // The map layer a run would start with (built from the cache the last run left).
    void mapLayer(this.session.workspace, this.session.config).then((map) => show(map ? [...this.session.layers, map] : this.session.layers));
  }

  /** `u`: the latest run that changed files, its files, y/n (src/tui/undo-prompt.ts). */
  private undoLastRun(): void {
    void offerUndo(this.session.workspace.root, this.modal, this.say)
      .catch((error) => this.say(`undo failed: ${(error as Error).message}`))
      .finally(() => this.scheduler.request());
  }

  /** What the slash commands (src/tui/slash-commands.ts) may do. */
  private slashHost(): SlashHost {
    return {
      running: () => this.runs.active,
      say: this.say,
      overlay: (title, text) => this.overlay.show(title, text),
      help: () => this.keys.showHelp(),
      pickModel: () => void this.choice.pick(false),
      undo: () => this.undoLastRun(),
      sessions: () => sessionLines(this.session.workspace.root),
      newSession: () => this.runs.newSession(),
      compact: () => this.runs.compact(),
      allow: (text) => {
        try {
          const rule = parseRule(text, TOOL_NAMES, this.session.mcp.servers.map((server) => server.name));
          this.session.checkpoint.allowForSession(rule);
          this.say(`allowed for this session without asking: ${sanitize(rule.text)} (deny rules still win)`);
        } catch (error) {
          this.warning = `/allow: ${(error as Error).message}`;
        }
      },
      limits: () => this.session.limits,
      prompt: () => this.showPrompt(),
      quit: () => this.exit(),
    };
  }

  private exit(): void {
    void this.shutdown().finally(() => this.quit(0));
  }

  /** Every way out: the run stopped, the terminal given back, the servers (and everything they started) stopped. */
  private async shutdown(): Promise<void> {
    // Waited for: a hang-up during a check still writes the stop event and removes the check's temp folder.
    const runEnded = this.runs.quit();
    this.modal.close("no");
    this.choice.picker.close();
    this.scheduler.stop();
    // A signal's exit has restored the terminal already.
    if (!(this.screen as { destroyed?: boolean }).destroyed) this.screen.destroy();
    await Promise.all([runEnded, this.session.mcp.close(), this.server.stop()]);
  }

  private onModalChange(): void {
    // A question takes the keys: an overlay over it would hide it.
    if (this.modal.open) this.overlay.close();
    // The status line says "waiting for approval" while the modal is open (paint); the run's own state stays as it was.
    this.scheduler.request();
  }

  private layout(): Layout {
    return layout(this.screen.width as number, this.screen.height as number, layerPaneRows(this.session.layers.length + (this.session.config.repo_map.layer ? 1 : 0), this.session.mcp.status()), this.composer?.height ?? 1);
  }

  private relayout(): void {
    const l = this.layout();
    this.panes.place(l);
    this.composer.place(l.input);
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
    const { session, runs, panes } = this;
    // Streamed text goes to the saved session before it reaches the screen.
    runs.saved.flush();
    panes.transcript.draw();
    this.scheduler.frameMs = paceFor(panes.transcript.rowsPerSecond());
    const state = this.modal.open ? "waiting for approval" : runs.state;
    panes.status.setContent(statusLine({ state, queued: runs.queued, warning: this.warning, model: session.model.name, workspace: session.workspace.root, sandbox: session.sandbox, insecureTls: session.insecureTls, server: this.server.status(), profile: session.profile?.path ?? null }));
    panes.verdicts.draw();
    panes.meters.draw(meters(runs.view, Date.now()));
    const rows = session.layers.map((layer, index) => ({ ...layer, state: this.layerStates[index] ?? "unlocked" }));
    panes.layers.draw(this.mapRow ? [...rows, this.mapRow] : rows, session.mcp.status());
    panes.plan.draw(session.checkpoint.todo);
    this.draw();
  }
}

/** The prompt lock, read once; a broken lock shows every layer as unlocked (the drift findings say why). */
function lockOf(root: string): ReturnType<typeof readLock> {
  try {
    return readLock(root);
  } catch {
    return null;
  }
}
