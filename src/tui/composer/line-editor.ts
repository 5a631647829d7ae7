/**
 * The message being typed: text and a cursor, edited with the keys of a shell's line editor.
 * Pure logic, no terminal: the composer feeds it keys and draws what it holds.
 *
 * A long paste is held as one character of its own (a "fold"): one step of the cursor, one
 * Backspace, drawn as `[pasted 40 lines]`, and given back whole by `message()`.
 */

/** Pastes with more lines than this are shown folded. */
export const FOLD_OVER_LINES = 10;

/** Folds are characters of Unicode's private use area, one per paste, numbered from here. */
const FOLD_BASE = 0xe000;
const FOLD_LAST = 0xf8ff;

export class LineEditor {
  text = "";
  /** An index into `text`, never inside a surrogate pair. */
  cursor = 0;
  private folds: string[] = [];

  /** Replaces everything (a history entry, a message given back). */
  set(text: string): void {
    this.folds = [];
    this.text = this.unfoldable(text);
    this.cursor = this.text.length;
  }

  clear(): void {
    this.text = "";
    this.cursor = 0;
    this.folds = [];
  }

  get empty(): boolean {
    return this.text === "";
  }

  /** The message as it is sent: every fold put back as the text that was pasted. */
  message(): string {
    return this.text.replace(/[\ue000-\uf8ff]/g, (char) => this.folds[char.charCodeAt(0) - FOLD_BASE] ?? char);
  }

  /** The fold a character stands for, or null: for drawing. */
  foldOf(char: string): string | null {
    const index = char.charCodeAt(0) - FOLD_BASE;
    return char.length === 1 && index >= 0 && index < this.folds.length ? `[pasted ${lineCount(this.folds[index]!)} lines]` : null;
  }

  insert(text: string): void {
    text = this.unfoldable(text);
    this.text = this.text.slice(0, this.cursor) + text + this.text.slice(this.cursor);
    this.cursor += text.length;
  }

  /** A bracketed paste: as typed when short, one fold when over FOLD_OVER_LINES lines. */
  paste(text: string): void {
    text = text.replace(/\r\n?/g, "\n");
    if (lineCount(text) <= FOLD_OVER_LINES || FOLD_BASE + this.folds.length > FOLD_LAST) return this.insert(text);
    this.folds.push(text);
    const fold = String.fromCharCode(FOLD_BASE + this.folds.length - 1);
    this.text = this.text.slice(0, this.cursor) + fold + this.text.slice(this.cursor);
    this.cursor += 1;
  }

  left(): void {
    this.cursor = previousStop(this.text, this.cursor);
  }

  right(): void {
    this.cursor = nextStop(this.text, this.cursor);
  }

  /** Ctrl-A / Home: the start of the cursor's line. */
  lineStart(): void {
    this.cursor = this.text.lastIndexOf("\n", this.cursor - 1) + 1;
  }

  /** Ctrl-E / End: the end of the cursor's line. */
  lineEnd(): void {
    const end = this.text.indexOf("\n", this.cursor);
    this.cursor = end === -1 ? this.text.length : end;
  }

  backspace(): void {
    this.cut(previousStop(this.text, this.cursor), this.cursor);
  }

  delete(): void {
    this.cut(this.cursor, nextStop(this.text, this.cursor));
  }

  /** Ctrl-U: from the start of the line to the cursor. */
  killToLineStart(): void {
    this.cut(this.text.lastIndexOf("\n", this.cursor - 1) + 1, this.cursor);
  }

  /** Ctrl-K: from the cursor to the end of the line; at its end, the newline (as Emacs does). */
  killToLineEnd(): void {
    const end = this.text.indexOf("\n", this.cursor);
    this.cut(this.cursor, end === -1 ? this.text.length : end === this.cursor ? end + 1 : end);
  }

  /** Ctrl-W: the word before the cursor, with the spaces after it, as bash's unix-word-rubout. */
  killWordBefore(): void {
    let start = this.cursor;
    while (start > 0 && /\s/.test(this.text[start - 1]!)) start--;
    while (start > 0 && !/\s/.test(this.text[start - 1]!)) start--;
    this.cut(start, this.cursor);
  }

  /** Alt-B: to the start of this or the previous word (letters and digits), as readline. */
  wordLeft(): void {
    let at = this.cursor;
    while (at > 0 && !isWordChar(this.text[at - 1]!)) at--;
    while (at > 0 && isWordChar(this.text[at - 1]!)) at--;
    this.cursor = at;
  }

  /** Alt-F: to the end of this or the next word. */
  wordRight(): void {
    let at = this.cursor;
    while (at < this.text.length && !isWordChar(this.text[at]!)) at++;
    while (at < this.text.length && isWordChar(this.text[at]!)) at++;
    this.cursor = at;
  }

  /** Replaces text[start, end) (a completed word), the cursor after what replaced it. */
  replace(start: number, end: number, text: string): void {
    text = this.unfoldable(text);
    this.text = this.text.slice(0, start) + text + this.text.slice(end);
    this.cursor = start + text.length;
  }

  private cut(start: number, end: number): void {
    this.text = this.text.slice(0, start) + this.text.slice(end);
    this.cursor = start;
  }

  /** Typed or recalled text never holds a fold's character: it would be taken for a paste. */
  private unfoldable(text: string): string {
    return text.replace(/[\ue000-\uf8ff]/g, "\ufffd");
  }
}

export function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

function isWordChar(char: string): boolean {
  return /[\p{L}\p{N}_]/u.test(char);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The cursor stop before `at`: one character back, a surrogate pair as one. */
export function previousStop(text: string, at: number): number {
  if (at <= 0) return 0;
  return at >= 2 && isLowSurrogate(text.charCodeAt(at - 1)) ? at - 2 : at - 1;
}

export function nextStop(text: string, at: number): number {
  if (at >= text.length) return text.length;
  return at + 1 < text.length && isLowSurrogate(text.charCodeAt(at + 1)) ? at + 2 : at + 1;
}
