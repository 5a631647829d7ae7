import type { ApprovalModal } from "./approval-modal.ts";
import type { Widgets } from "./blessed.ts";
import type { Composer } from "./composer/composer.ts";
import { helpText } from "./help.ts";
import type { InputLine, ModelChoice } from "./model-choice.ts";
import type { Overlay } from "./overlay.ts";
import type { TranscriptPane } from "./panes/transcript-pane.ts";
import type { VerdictsPane } from "./panes/verdicts-pane.ts";
import type { RenderScheduler } from "./render-scheduler.ts";
import type { RunControl } from "./run-control.ts";

type Key = Widgets.Events.IKeyEventArg;

/** What the keys act on: the screen's widgets, the runs, and three actions of the app. */
export interface KeyTargets {
  screen: Pick<Widgets.Screen, "focused" | "realloc">;
  composer: Pick<Composer, "box" | "editor" | "empty" | "key" | "set">;
  overlay: Pick<Overlay, "open" | "show" | "key" | "close">;
  modal: Pick<ApprovalModal, "open" | "key">;
  choice: Pick<ModelChoice, "picker" | "inputKey">;
  transcript: Pick<TranscriptPane, "box" | "pageSize" | "scroll" | "toggleFold">;
  verdicts: Pick<VerdictsPane, "box" | "key" | "selectedResult">;
  scheduler: Pick<RenderScheduler, "expedite" | "request" | "soon">;
  runs: Pick<RunControl, "active" | "interrupt" | "quitOnCtrlC">;
  /** `u`: the latest run that changed files, undone after a y. */
  undo(): void;
  /** `p`: the assembled system prompt in the overlay. */
  showPrompt(): void;
  /** Ctrl-C: everything closed, the terminal given back. */
  exit(): void;
}

/** Where each key goes: the keys that work anywhere, an overlay, a question, the model picker, the input or a pane. */
export class KeyRouter {
  /** The input's text as the model choice reads and sets it (the m of "make" typed back). */
  private readonly inputLine: InputLine;
  /** The letter that opened an overlay from the empty input: a letter typed next closes it and both are typed ("please…"). */
  private typedThrough: string | null = null;

  constructor(private readonly t: KeyTargets) {
    const composer = t.composer;
    this.inputLine = {
      get value() {
        return composer.editor.text;
      },
      set value(text: string) {
        composer.set(text);
      },
    };
  }

  /**
   * Every key, in this order: the keys that work anywhere, an overlay, a question, the model
   * picker; then the input when it has the focus, or the focused pane.
   */
  onKey(ch: string | undefined, key: Key): void {
    const t = this.t;
    t.scheduler.expedite();
    if (key.full === "C-c") return this.onCtrlC();
    if (key.full === "C-l") return this.redrawAll();
    // blessed reports Enter twice, as "enter" and then as "return": the second is not a key of its own.
    if (key.name === "return") return;
    const onInput = t.screen.focused === t.composer.box;
    if (t.overlay.open) {
      const through = this.typedThrough;
      this.typedThrough = null;
      if (through && onInput && printable(ch)) {
        t.overlay.close();
        t.composer.set(through);
        t.composer.key(ch, key);
        return t.scheduler.request();
      }
      t.overlay.key(key.name);
      return;
    }
    if (key.name === "f1" && !t.choice.picker.open) return this.showHelp();
    if (t.modal.open) {
      t.modal.key(key.name);
      return;
    }
    if (onInput) return this.inputKey(ch, key);
    if (t.choice.picker.open) {
      t.choice.picker.key(ch, key.name);
      return;
    }
    if (key.name === "escape") return this.focusInput();
    if (key.name === "tab") return this.cycleFocus();
    if (t.screen.focused === t.verdicts.box) {
      // A list of the calls: Enter opens the selected one's whole result.
      const result = key.name === "enter" ? t.verdicts.selectedResult() : null;
      if (result) return t.overlay.show(result.title, result.text);
      if (t.verdicts.key(key.name)) return t.scheduler.request();
    }
    // In the transcript, Enter opens or closes the newest folded entry in view (a sub-run's steps).
    if (key.name === "enter" && t.screen.focused === t.transcript.box && t.transcript.toggleFold()) return t.scheduler.request();
    if (key.name === "enter") return this.focusInput();
    if (this.singleKey(ch)) return;
    const page = t.transcript.pageSize();
    const moves: Record<string, number | "top" | "bottom"> = { pageup: -page, pagedown: page, up: -1, down: 1, home: "top", end: "bottom" };
    const move = moves[key.name];
    if (move === undefined) return;
    t.transcript.scroll(move);
    t.scheduler.request();
  }

  /** A paste or an Alt+Enter: the input takes the focus back and the text. Not while a question or the picker has the keys. */
  toInput(edit: () => void): void {
    const t = this.t;
    if (t.modal.open || t.choice.picker.open) return;
    t.overlay.close();
    t.scheduler.expedite();
    this.focusInput();
    edit();
  }

  showHelp(): void {
    this.t.overlay.show("help", helpText());
  }

  /** A key while the input has the focus: the picker's, a single key on the empty input, an edit, or Esc and Tab. */
  private inputKey(ch: string | undefined, key: Key): void {
    const t = this.t;
    if (t.choice.inputKey(ch, key.name, this.inputLine)) return;
    if (t.composer.empty && this.singleKey(ch)) return;
    if (t.composer.key(ch, key)) return t.scheduler.request();
    if (key.name === "escape") return t.runs.interrupt();
    if (key.name === "tab") return this.cycleFocus();
  }

  /** `?` help, `u` undo (between runs), `p` the prompt: on an empty input or in a pane. */
  private singleKey(ch: string | undefined): boolean {
    const t = this.t;
    if (ch === "?") this.showHelp();
    else if (ch === "u" && !t.runs.active) t.undo();
    else if (ch === "p") {
      t.showPrompt();
      // "please …": the next letter closes the prompt and both letters are typed.
      if (t.screen.focused === t.composer.box) this.typedThrough = "p";
    } else return false;
    return true;
  }

  private onCtrlC(): void {
    if (this.t.runs.quitOnCtrlC()) this.t.exit();
  }

  /** Forgets what the terminal shows and draws every cell: frames otherwise write only what changed. */
  private redrawAll(): void {
    this.t.screen.realloc();
    this.t.scheduler.soon();
  }

  private focusInput(): void {
    this.t.composer.box.focus();
    this.t.scheduler.request();
  }

  private cycleFocus(): void {
    const t = this.t;
    const order: Widgets.BlessedElement[] = [t.composer.box, t.transcript.box, t.verdicts.box];
    order[(order.indexOf(t.screen.focused as Widgets.BlessedElement) + 1) % order.length]!.focus();
    t.scheduler.request();
  }
}

function printable(ch: string | undefined): ch is string {
  return ch !== undefined && ch >= " " && ch !== "\x7f";
}
