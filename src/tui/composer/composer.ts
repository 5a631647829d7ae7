/**
 * The input: a box that shows the message being typed (soft-wrapped, growing to a few rows,
 * then scrolling), the terminal's cursor in it, and a hint in its top border. Keys come from the
 * app while the input has the focus; the editing itself is LineEditor's, the history History's,
 * completion completion.ts's.
 */
import { blessed, type Widgets } from "../blessed.ts";
import type { Rect } from "../layout.ts";
import { sanitize } from "../sanitize.ts";
import { slashHint } from "../slash-commands.ts";
import { completionAt, type CompletionSources } from "./completion.ts";
import type { History } from "./history.ts";
import { LineEditor } from "./line-editor.ts";
import { cursorPlace, verticalMove, visualRows, type VisualRow } from "./view.ts";

/** The most rows of text the input grows to before it scrolls. */
export const INPUT_MAX_ROWS = 6;
const LABEL = " message · Enter sends · Alt+Enter or Ctrl+J new line · ↑ history ";

type Key = Widgets.Events.IKeyEventArg;

export interface ComposerHost {
  /** Enter: true when the message was taken (sent, queued or run as a command); the input then empties. */
  submit(message: string): boolean;
  /** The input's height in rows of text changed: the layout makes room. */
  resized(): void;
}

export class Composer {
  readonly box: Widgets.BoxElement;
  readonly editor = new LineEditor();
  /** Shown in the top border instead of the keys: completion candidates, a command's hint. */
  private hint: string | null = null;
  private rows: VisualRow[] = [{ start: 0, stops: [0], cols: [0], shown: "" }];
  private scrollTop = 0;
  private shownRows = 1;
  private label = "";
  private content = "";

  constructor(
    screen: Widgets.Screen,
    rect: Rect,
    private readonly history: History,
    private readonly sources: CompletionSources,
    private readonly host: ComposerHost,
  ) {
    this.box = blessed.box({ parent: screen, ...rect, border: "line", label: LABEL, wrap: false, style: { border: { fg: "gray" }, focus: { border: { fg: "cyan" } } } });
    const program = (screen as unknown as { program: { showCursor(): void; hideCursor(): void; cup(y: number, x: number): void } }).program;
    this.box.on("focus", () => program.showCursor());
    this.box.on("blur", () => program.hideCursor());
    // blessed calls this on the focused element after each frame: the terminal's cursor goes where the editor's is.
    (this.box as unknown as { _updateCursor(): void })._updateCursor = () => {
      const lpos = (this.box as unknown as { lpos?: { xi: number; yi: number } }).lpos;
      if (!lpos || screen.focused !== this.box) return;
      const { row, col } = cursorPlace(this.rows, this.editor.cursor);
      program.cup(lpos.yi + 1 + row - this.scrollTop, lpos.xi + 1 + col);
    };
    this.draw();
  }

  /** Rows of text the input wants: its message's, up to INPUT_MAX_ROWS. */
  get height(): number {
    return this.shownRows;
  }

  get empty(): boolean {
    return this.editor.empty;
  }

  /** A key while the input has the focus. False for a key it leaves to the app (Esc, Tab with nothing to complete, …). */
  key(ch: string | undefined, key: Key): boolean {
    const editor = this.editor;
    const name = key.name;
    if (name === "tab") return this.complete();
    if (name === "enter") {
      if (this.host.submit(editor.message())) editor.clear();
    } else if (name === "linefeed") editor.insert("\n");
    else if (name === "up" || name === "down") this.upDown(name === "up" ? -1 : 1);
    else if (key.ctrl) {
      const action = ({ a: () => editor.lineStart(), e: () => editor.lineEnd(), u: () => editor.killToLineStart(), k: () => editor.killToLineEnd(), w: () => editor.killWordBefore(), b: () => editor.left(), f: () => editor.right(), d: () => editor.delete(), h: () => editor.backspace() } as Record<string, () => void>)[name];
      if (!action) return false;
      action();
    } else if (key.meta) {
      if (name === "b") editor.wordLeft();
      else if (name === "f") editor.wordRight();
      else if (name === "backspace") editor.killWordBefore();
      else return false;
    } else if (name === "left") editor.left();
    else if (name === "right") editor.right();
    else if (name === "home") editor.lineStart();
    else if (name === "end") editor.lineEnd();
    else if (name === "backspace") editor.backspace();
    else if (name === "delete") editor.delete();
    else if (ch && ch >= " " && ch !== "\x7f") editor.insert(ch);
    else return false;
    this.hint = null;
    this.draw();
    return true;
  }

  paste(text: string): void {
    this.editor.paste(text);
    this.draw();
  }

  newline(): void {
    this.editor.insert("\n");
    this.draw();
  }

  /** Puts a message back (one that could not be sent yet). */
  set(text: string): void {
    this.editor.set(text);
    this.draw();
  }

  place(rect: Rect): void {
    Object.assign(this.box, rect);
    this.draw();
  }

  /** ↑ on the first row, ↓ on the last: the history; elsewhere a row up or down. */
  private upDown(delta: -1 | 1): void {
    const moved = verticalMove(this.rows, this.editor.cursor, delta);
    if (moved !== null) {
      this.editor.cursor = moved;
      return;
    }
    const recalled = delta === -1 ? this.history.older(this.editor.message()) : this.history.newer();
    if (recalled === null) return;
    this.editor.set(recalled);
    // Going back up, the cursor starts on the first row, so the next ↑ walks on at once.
    if (delta === 1) this.editor.cursor = Math.min(this.editor.cursor, recalled.indexOf("\n") === -1 ? recalled.length : recalled.indexOf("\n"));
  }

  /** Tab on a `/` command or an `@` word. False when there is nothing to complete (Tab moves the focus). */
  private complete(): boolean {
    const editor = this.editor;
    const completion = completionAt(editor.text, editor.cursor, this.sources);
    if (!completion) return false;
    const typed = editor.text.slice(completion.start, completion.end);
    const { candidates, common } = completion;
    if (candidates.length === 1) editor.replace(completion.start, completion.end, candidates[0]! + (completion.done ? " " : ""));
    else if (common.length > typed.length && common.startsWith(typed)) editor.replace(completion.start, completion.end, common);
    this.hint = candidates.length === 0 ? `nothing matches ${typed}` : candidates.length > 1 ? candidates.join("  ") : null;
    this.draw();
    return true;
  }

  /** Lays the message out in rows and sets what the box shows; the height follows the message. */
  draw(): void {
    const width = Math.max(2, (this.box.width as number) - 2);
    this.rows = visualRows(this.editor.text, width, (char) => this.editor.foldOf(char) ?? sanitize(char));
    const height = Math.min(INPUT_MAX_ROWS, this.rows.length);
    const { row } = cursorPlace(this.rows, this.editor.cursor);
    this.scrollTop = Math.min(Math.max(this.scrollTop, row - height + 1), row, this.rows.length - height);
    // Only what changed: each key typed draws the input again, even while a reply pours in.
    const content = this.rows.slice(this.scrollTop, this.scrollTop + height).map((visual) => visual.shown).join("\n");
    if (content !== this.content) this.box.setContent((this.content = content));
    const hint = this.hint ?? (this.editor.text.startsWith("/") ? slashHint(this.editor.text) : null);
    const more = this.rows.length > height ? ` · rows ${this.scrollTop + 1}-${this.scrollTop + height} of ${this.rows.length}` : "";
    const label = hint === null ? LABEL.trimEnd() + more + " " : ` ${sanitize(hint)} `;
    // In the top border, between its corners: a label wider than that would spill past the box.
    const fitted = label.length > width - 2 ? label.slice(0, width - 3) + "… " : label;
    if (fitted !== this.label) this.box.setLabel((this.label = fitted));
    if (height !== this.shownRows) {
      this.shownRows = height;
      this.host.resized();
    }
  }
}
