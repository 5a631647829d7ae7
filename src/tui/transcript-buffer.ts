import { sanitize } from "./sanitize.ts";

/** How a piece of the transcript is drawn; the pane maps each to colours. */
export type Voice = "user" | "assistant" | "thinking" | "tool" | "result" | "notice";

export interface Row {
  text: string;
  voice: Voice;
}

/**
 * The transcript as display rows, wrapped to the pane's width. Streaming text extends the last
 * row only (rows above never change), so a token costs the same at 0 or 20,000 lines. The
 * visible window is a slice, so drawing costs only what fits on screen. Rows beyond `maxRows`
 * are dropped from the top: the run's log keeps everything.
 *
 * Memory stays proportional to the rows kept: the text is held once, in the rows, as flat
 * strings (appending token after token to a kept string would keep every token as a separate
 * rope node: about 70 MB per million tokens). What re-wrapping on resize needs besides the rows
 * is one joint per row.
 */
export class TranscriptBuffer {
  private rows: Row[] = [];
  /**
   * How each row continues the one above: null when it starts a line, " " when wrapping dropped
   * a space between them, "" when it broke a word. Beside the rows, not in them, so a row stays
   * { text, voice }.
   */
  private joints: Array<Joint | null> = [];
  private open = false;
  private top = 0;
  follow = true;
  dropped = 0;

  constructor(
    private width: number,
    private readonly maxRows = 50_000,
  ) {}

  get length(): number {
    return this.rows.length;
  }

  /** Appends untrusted text in a voice; a new voice starts a new line. */
  append(text: string, voice: Voice): void {
    const lines = sanitize(text).split("\n");
    for (let index = 0; index < lines.length; index++) {
      const last = this.rows.at(-1);
      if (index === 0 && this.open && last && last.voice === voice) this.extendLastRow(lines[index]!, voice);
      else this.push(lines[index]!, voice, null);
      this.open = index === lines.length - 1;
    }
    this.trim();
  }

  /** Ends the current line: the next append starts a new one. */
  newline(): void {
    this.open = false;
  }

  /** A whole line of its own. */
  line(text: string, voice: Voice): void {
    this.newline();
    this.append(text, voice);
    this.newline();
  }

  resize(width: number): void {
    if (width === this.width) return;
    this.width = width;
    const rows = this.rows;
    const joints = this.joints;
    this.rows = [];
    this.joints = [];
    for (let start = 0; start < rows.length; ) {
      // A line is its first row and every row that continues it (the first kept row starts one).
      let end = start + 1;
      while (end < rows.length && joints[end] != null) end++;
      let text = rows[start]!.text;
      for (let i = start + 1; i < end; i++) text += joints[i]! + rows[i]!.text;
      this.push(text, rows[start]!.voice, null);
      start = end;
    }
  }

  /** The rows to draw in a pane `height` rows tall. */
  visible(height: number): Row[] {
    if (this.follow) this.top = Math.max(0, this.rows.length - height);
    return this.rows.slice(this.top, this.top + height);
  }

  scroll(delta: number, height: number): void {
    const bottom = Math.max(0, this.rows.length - height);
    this.top = Math.min(bottom, Math.max(0, (this.follow ? bottom : this.top) + delta));
    // Back at the bottom: stick to it again.
    this.follow = this.top >= bottom;
  }

  scrollTo(where: "top" | "bottom", height: number): void {
    this.top = where === "top" ? 0 : Math.max(0, this.rows.length - height);
    this.follow = where === "bottom" || this.rows.length <= height;
  }

  position(): { top: number; total: number } {
    return { top: this.top, total: this.rows.length };
  }

  /** Wraps `text` and adds its rows; the first continues the row above by `joint`. */
  private push(text: string, voice: Voice, joint: Joint | null): void {
    const joints: Joint[] = [];
    const rows = wrap(text, this.width, voice, joints);
    this.rows.push(...rows);
    this.joints.push(joint, ...joints);
  }

  private extendLastRow(text: string, voice: Voice): void {
    const last = this.rows.pop()!;
    const joint = this.joints.pop()!;
    this.push(last.text + text, voice, joint);
  }

  private trim(): void {
    const over = this.rows.length - this.maxRows;
    if (over <= 0) return;
    this.rows.splice(0, over);
    this.joints.splice(0, over);
    this.dropped += over;
    this.top = Math.max(0, this.top - over);
  }
}

/** What wrapping took out between two rows of one line: a space, or nothing (a broken word). */
export type Joint = " " | "";

/**
 * Breaks a line into rows of at most `width` columns (wide characters count double), at spaces
 * where it can. Each row is a slice of `text` (a flat string, never a chain of appended pieces).
 * `joints`, if given, gets what was taken out before each row after the first.
 */
export function wrap(text: string, width: number, voice: Voice, joints?: Joint[]): Row[] {
  const room = Math.max(1, width);
  // Measuring also turns a string built by `+` into one flat string, so a kept row holds no pieces.
  if (Bun.stringWidth(text) <= room) return [{ text, voice }];
  const rows: Row[] = [];
  const cut = (end: number, next: number, joint: Joint) => {
    rows.push({ text: text.slice(start, end), voice });
    joints?.push(joint);
    start = next;
  };
  /** Where the current row starts, and the last space in it (after its first character), or -1. */
  let start = 0;
  let lastSpace = -1;
  let used = 0;
  let at = 0;
  for (const char of text) {
    const here = at;
    at += char.length;
    const w = Bun.stringWidth(char);
    if (used + w > room) {
      if (char === " ") {
        cut(here, at, " ");
        used = 0;
        lastSpace = -1;
        continue;
      }
      if (lastSpace > start) cut(lastSpace, lastSpace + 1, " ");
      else cut(here, here, "");
      used = Bun.stringWidth(text.slice(start, here));
      const space = text.lastIndexOf(" ", here - 1);
      lastSpace = space >= start ? space : -1;
    }
    used += w;
    if (char === " ") lastSpace = here;
  }
  rows.push({ text: text.slice(start), voice });
  return rows;
}
