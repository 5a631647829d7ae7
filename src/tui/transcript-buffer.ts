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
 */
export class TranscriptBuffer {
  private rows: Row[] = [];
  /** Where each logical line starts, for re-wrapping on resize. */
  private logical: Array<{ text: string; voice: Voice }> = [];
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
    const clean = sanitize(text);
    const lines = clean.split("\n");
    lines.forEach((line, index) => {
      const last = this.logical.at(-1);
      if (index === 0 && this.open && last && last.voice === voice) {
        last.text += line;
        this.extendLastRow(line, voice);
      } else {
        this.logical.push({ text: line, voice });
        this.rows.push(...wrap(line, this.width, voice));
      }
      this.open = true;
      if (index < lines.length - 1) this.open = false;
    });
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
    this.rows = this.logical.flatMap((line) => wrap(line.text, width, line.voice));
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

  private extendLastRow(text: string, voice: Voice): void {
    const last = this.rows.pop();
    this.rows.push(...wrap((last?.text ?? "") + text, this.width, voice));
  }

  private trim(): void {
    const over = this.rows.length - this.maxRows;
    if (over <= 0) return;
    this.rows.splice(0, over);
    this.dropped += over;
    this.top = Math.max(0, this.top - over);
    // Logical lines are only for re-wrapping; keep roughly as many as there are rows.
    if (this.logical.length > this.maxRows) this.logical.splice(0, this.logical.length - this.maxRows);
  }
}

/** Breaks a line into rows of at most `width` columns (wide characters count double), at spaces where it can. */
export function wrap(text: string, width: number, voice: Voice): Row[] {
  const room = Math.max(1, width);
  if (Bun.stringWidth(text) <= room) return [{ text, voice }];
  const rows: Row[] = [];
  let row = "";
  let used = 0;
  let lastSpace = -1;
  for (const char of text) {
    const w = Bun.stringWidth(char);
    if (used + w > room) {
      if (char === " ") {
        rows.push({ text: row, voice });
        row = "";
        used = 0;
        lastSpace = -1;
        continue;
      }
      if (lastSpace > 0) {
        rows.push({ text: row.slice(0, lastSpace), voice });
        row = row.slice(lastSpace + 1);
      } else {
        rows.push({ text: row, voice });
        row = "";
      }
      used = Bun.stringWidth(row);
      lastSpace = row.lastIndexOf(" ");
    }
    row += char;
    used += w;
    if (char === " ") lastSpace = row.length - 1;
  }
  rows.push({ text: row, voice });
  return rows;
}
