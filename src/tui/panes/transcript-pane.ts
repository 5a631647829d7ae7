import type { Widgets } from "../blessed.ts";
import { scrollRows, writeRow } from "../cell-writer.ts";
import { Pane } from "./pane.ts";
import { TranscriptBuffer, type Row, type Voice } from "../transcript-buffer.ts";
import { VOICE_STYLE } from "../theme.ts";
import type { MarkdownStream } from "../markdown/stream.ts";
import { STYLE_CODES, styleTags } from "../markdown/style.ts";
import type { Rect } from "../layout.ts";

/**
 * The conversation as it streams. A frame only ever handles the visible rows (the buffer
 * sanitizes everything on the way in), so it costs the same at any transcript length.
 *
 * When the view moved by fewer rows than it holds (and few enough: worthScrolling), the terminal
 * scrolls them itself (a scroll region over the pane's rows, then delete or insert lines): only
 * the rows that came into view are written, instead of every row of the pane each frame. The region spans the whole width (a
 * terminal scrolls no narrower), so the side column's rows move too; blessed's own record of the
 * screen moves with them (scrollRows), and its diff puts back only the cells that differ.
 *
 * The rows go straight into the screen's cells when the box renders (writeRow), not through the
 * box's content: blessed would parse the tags of every visible row, wrap and measure them, and
 * read every cell's escape codes, on every frame, for rows the buffer has already wrapped.
 */
export class TranscriptPane extends Pane {
  readonly buffer: TranscriptBuffer;
  private label = " transcript ";
  /** Which row the terminal shows on top since the last frame (null: nothing to scroll from). */
  private shown: number | null = null;
  /** Rows scrolled into view per frame, with when: how fast text pours in. */
  private scrolls: Array<{ at: number; rows: number }> = [];
  /** What the next render puts inside the border. */
  private rows: Row[] = [];
  /** Each voice's cell attribute, for the box's attribute they were worked out from. */
  private voiceAttrs = new Map<number, Map<Voice, number>>();
  /** Each Markdown style code's cell attribute over a voice's (index: the code), likewise. */
  private styleAttrs = new Map<number, number[]>();
  /** The model's reply streaming as Markdown; its rows are redrawn from it once a frame. */
  private markdown: MarkdownStream | null = null;
  /** Each folded entry's number in the buffer, by its key (a sub-run's explore call id). */
  private readonly foldIds = new Map<string, number>();

  constructor(parent: Widgets.Screen, rect: Rect) {
    super(parent, rect, "transcript", true);
    this.buffer = new TranscriptBuffer(this.innerWidth());
    // blessed draws the border and the label; the cells inside are written by writeRows() alone.
    (this.box as unknown as { _noFill: boolean })._noFill = true;
    this.box.on("render", (coords: Coords) => this.writeRows(coords));
  }

  override place(rect: Rect): void {
    super.place(rect);
    this.buffer.resize(this.innerWidth());
    // Moved, resized or rewrapped: what the terminal showed there is no longer rows to scroll.
    this.shown = null;
  }

  scroll(delta: number | "top" | "bottom"): void {
    this.showMarkdown();
    if (typeof delta === "number") this.buffer.scroll(delta, this.innerHeight());
    else this.buffer.scrollTo(delta, this.innerHeight());
  }

  /** The model's reply (voice "assistant") is Markdown: drawn rendered, at the next frame. */
  append(text: string, voice: Voice): void {
    if (voice === "assistant") return (this.markdown ??= newMarkdownStream()).append(text);
    this.endMarkdown();
    this.buffer.append(text, voice);
  }

  line(text: string, voice: Voice): void {
    this.endMarkdown();
    this.buffer.line(text, voice);
  }

  /** A folded entry (a sub-run): its header, closed; `key` names it in the calls below. */
  openFold(key: string, header: string): void {
    this.endMarkdown();
    const id = this.foldIds.size + 1;
    this.foldIds.set(key, id);
    this.buffer.openFold(id, header);
  }

  setFoldHeader(key: string, header: string): void {
    const id = this.foldIds.get(key);
    if (id !== undefined) this.buffer.setFoldHeader(id, header);
  }

  /** A line of the folded entry, shown under its header while it is open. */
  addToFold(key: string, text: string, voice: Voice): void {
    const id = this.foldIds.get(key);
    if (id !== undefined) this.buffer.addToFold(id, text, voice);
  }

  /** Enter in the transcript: opens or closes the newest fold whose header is in view. False: none is. */
  toggleFold(): boolean {
    this.showMarkdown();
    const shown = this.buffer.foldsShown(this.innerHeight());
    const newest = shown.at(-1);
    return newest !== undefined && this.buffer.toggleFold(newest, this.innerHeight());
  }

  /** Ends the current line, and the reply streaming as Markdown. */
  newline(): void {
    this.endMarkdown();
    this.buffer.newline();
  }

  /** The reply's text so far, rendered: its finished blocks for good, its last one until the next frame. */
  private showMarkdown(): void {
    if (!this.markdown?.dirty) return;
    const { commit, provisional } = this.markdown.flush();
    this.buffer.replaceGrowing(commit, provisional, "assistant");
  }

  private endMarkdown(): void {
    if (!this.markdown) return;
    this.buffer.replaceGrowing(this.markdown.end(), [], "assistant");
    this.markdown = null;
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
    this.showMarkdown();
    const height = this.innerHeight();
    this.rows = this.buffer.visible(height);
    this.scrollTerminal(height, now);
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
    if (moved === 0 || !worthScrolling(Math.abs(moved), height, (this.box.width as number) >= (this.box.screen.width as number))) return;
    const top = (this.box.top as number) + 1; // inside the border
    const bottom = top + height - 1;
    scrollRows(this.box.screen, moved, top, bottom);
  }

  private writeRows(coords: Coords): void {
    const element = this.box as unknown as BoxInternals;
    const fill = element.sattr(element.style);
    const lines = element.screen.lines;
    const [xi, xl] = [coords.xi + 1, coords.xl - 1];
    for (let y = coords.yi + 1, i = 0; y < coords.yl - 1 && lines[y]; y++, i++) {
      const row = this.rows[i];
      if (!row) writeRow(lines[y]!, xi, xl, "", fill, fill);
      else if (row.styles === undefined) writeRow(lines[y]!, xi, xl, row.text, this.voiceAttr(row.voice, fill), fill);
      else writeRow(lines[y]!, xi, xl, row.text, this.voiceAttr(row.voice, fill), fill, row.styles, this.markdownAttrs(this.voiceAttr(row.voice, fill)));
    }
  }

  /** The attribute of a voice's cells: its colours (VOICE_STYLE) over the box's own. */
  private voiceAttr(voice: Voice, base: number): number {
    let byVoice = this.voiceAttrs.get(base);
    if (!byVoice) this.voiceAttrs.set(base, (byVoice = new Map()));
    let attr = byVoice.get(voice);
    if (attr === undefined) byVoice.set(voice, (attr = this.tagsAttr(VOICE_STYLE[voice][0], base)));
    return attr;
  }

  /** The attributes of the Markdown style codes over a voice's attribute `base`, by code. */
  private markdownAttrs(base: number): number[] {
    let attrs = this.styleAttrs.get(base);
    if (!attrs) this.styleAttrs.set(base, (attrs = Array.from({ length: STYLE_CODES }, (_, code) => this.tagsAttr(styleTags(code), base))));
    return attrs;
  }

  /** The cell attribute that blessed tags (opening ones only) make of `base`. */
  private tagsAttr(tags: string, base: number): number {
    const element = this.box as unknown as BoxInternals;
    let attr = base;
    for (const code of element._parseTags(tags).match(/\x1b\[[\d;]*m/g) ?? []) attr = element.screen.attrCode(code, attr, base);
    return attr;
  }
}

/**
 * Loaded with the first reply, not at start: marked and the highlighter are code a start would
 * evaluate for nothing (a `require` is evaluated when called; an `import` before the first frame).
 */
function newMarkdownStream(): MarkdownStream {
  const { MarkdownStream } = require("../markdown/stream.ts") as typeof import("../markdown/stream.ts");
  return new MarkdownStream();
}

/**
 * Whether the terminal should scroll a pane `height` rows tall by `moved` rows rather than have
 * every row written. Scrolling saves writing the rows that stay; beside a side column it also
 * moves the side column's rows, which must then be written back. Past half the pane that costs
 * more than it saves: text pouring in 33 rows a frame into a 39-row pane wrote 270 KB per 10 s
 * scrolled and 180-190 KB rewritten.
 */
export function worthScrolling(moved: number, height: number, fullWidth: boolean): boolean {
  if (moved >= height) return false;
  return fullWidth || moved <= height / 2;
}

/** Where blessed drew a box, border included (the argument of its "render" event). */
interface Coords {
  xi: number;
  xl: number;
  yi: number;
  yl: number;
}

/** The parts of a blessed box (and its screen) that writing rows needs. */
interface BoxInternals {
  style: unknown;
  sattr(style: unknown): number;
  _parseTags(text: string): string;
  screen: { lines: Array<Array<[number, string]> & { dirty?: boolean }>; attrCode(code: string, attr: number, def: number): number };
}
