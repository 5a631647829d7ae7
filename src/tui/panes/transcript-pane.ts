import { updateContent, type Widgets } from "../blessed.ts";
import { Pane } from "./pane.ts";
import { escapeTags } from "../sanitize.ts";
import { TranscriptBuffer } from "../transcript-buffer.ts";
import { VOICE_STYLE } from "../theme.ts";
import type { Rect } from "../layout.ts";

/**
 * The conversation as it streams. The widget only ever holds the visible rows (the buffer
 * sanitizes everything on the way in), so a frame costs the same at any transcript length.
 */
export class TranscriptPane extends Pane {
  readonly buffer: TranscriptBuffer;
  private label = " transcript ";

  constructor(parent: Widgets.Screen, rect: Rect) {
    super(parent, rect, "transcript", true);
    this.buffer = new TranscriptBuffer(this.innerWidth());
  }

  override place(rect: Rect): void {
    super.place(rect);
    this.buffer.resize(this.innerWidth());
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

  draw(): void {
    const rows = this.buffer.visible(this.innerHeight());
    updateContent(this.box, rows.map((row) => VOICE_STYLE[row.voice][0] + escapeTags(row.text) + VOICE_STYLE[row.voice][1]).join("\n"));
    const { top, total } = this.buffer.position();
    const where = this.buffer.follow ? "" : ` ${top + 1}/${total} (End follows) `;
    const label = ` transcript${where ? " ·" + where : " "}`;
    if (label !== this.label) this.box.setLabel((this.label = label));
  }
}
