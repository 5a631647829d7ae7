import { updateContent, type Widgets } from "../blessed.ts";
import { Pane } from "./pane.ts";
import { escapeTags } from "../sanitize.ts";
import { TranscriptBuffer } from "../transcript-buffer.ts";
import { VOICE_STYLE } from "../theme.ts";
import type { Rect } from "../layout.ts";

/**
 * The conversation as it streams. The widget only ever holds the visible rows (the buffer
 * sanitizes everything on the way in), so a frame costs the same at any transcript length.
 *
 * When the view moved by fewer rows than it holds, the terminal scrolls them itself (a scroll
 * region over the pane's rows, then delete or insert lines): only the rows that came into view
 * are written, instead of every row of the pane each frame. The region spans the whole width (a
 * terminal scrolls no narrower), so the side column's rows move too; blessed's own record of the
 * screen moves with them (Screen.deleteLine), and its diff puts back only the cells that differ.
 */
export class TranscriptPane extends Pane {
  readonly buffer: TranscriptBuffer;
  private label = " transcript ";
  /** Which row the terminal shows on top since the last frame (null: nothing to scroll from). */
  private shown: number | null = null;
  /** Rows scrolled into view per frame, with when: how fast text pours in. */
  private scrolls: Array<{ at: number; rows: number }> = [];

  constructor(parent: Widgets.Screen, rect: Rect) {
    super(parent, rect, "transcript", true);
    this.buffer = new TranscriptBuffer(this.innerWidth());
  }

  override place(rect: Rect): void {
    super.place(rect);
    this.buffer.resize(this.innerWidth());
    // Moved, resized or rewrapped: what the terminal showed there is no longer rows to scroll.
    this.shown = null;
  }

  scroll(delta: number | "top" | "bottom"): void {
    if (typeof delta === "number") this.buffer.scroll(delta, this.innerHeight());
    else this.buffer.scrollTo(delta, this.innerHeight());
  }

  append(text: string, voice: Parameters<TranscriptBuffer["append"]>[1]): void {
    this.buffer.append(text, voice);
  }

  line(text: string, voice: Parameters<TranscriptBuffer["line"]>[1]): void {
    this.buffer.line(text, voice);
  }

  pageSize(): number {
    return Math.max(1, this.innerHeight() - 1);
  }

  /** Rows that scrolled into view over the last second. */
  rowsPerSecond(now = performance.now()): number {
    this.scrolls = this.scrolls.filter((scroll) => now - scroll.at < 1000);
    return this.scrolls.reduce((sum, scroll) => sum + scroll.rows, 0);
  }

  draw(now = performance.now()): void {
    const height = this.innerHeight();
    const rows = this.buffer.visible(height);
    this.scrollTerminal(height, now);
    updateContent(this.box, rows.map((row) => VOICE_STYLE[row.voice][0] + escapeTags(row.text) + VOICE_STYLE[row.voice][1]).join("\n"));
    const { top, total } = this.buffer.position();
    const where = this.buffer.follow ? "" : ` ${top + 1}/${total} (End follows) `;
    const label = ` transcript${where ? " ·" + where : " "}`;
    if (label !== this.label) this.box.setLabel((this.label = label));
  }

  private scrollTerminal(height: number, now: number): void {
    const before = this.shown;
    this.shown = this.buffer.firstShown();
    if (before === null) return;
    const moved = this.shown - before;
    if (moved > 0) this.scrolls.push({ at: now, rows: moved });
    if (moved === 0 || Math.abs(moved) >= height) return;
    const top = (this.box.top as number) + 1; // inside the border
    const bottom = top + height - 1;
    const screen = this.box.screen;
    if (moved > 0) screen.deleteLine(moved, top, top, bottom);
    else screen.insertLine(-moved, top, top, bottom);
  }
}
