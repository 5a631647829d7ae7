import { sanitize } from "./sanitize.ts";
import type { StyledLine } from "./markdown/style.ts";

/** How a piece of the transcript is drawn; the pane maps each to colours. A packed row keeps its index. */
const VOICES = ["user", "assistant", "thinking", "tool", "result", "notice", "fold"] as const;
export type Voice = (typeof VOICES)[number];

export interface Row {
  text: string;
  voice: Voice;
  /** Rendered Markdown: a style code per character of `text` (markdown/style.ts); absent when it draws the voice's own look throughout. */
  styles?: string;
  /** The fold the row belongs to: its header (voice "fold") or one of its lines, shown while it is open. */
  fold?: number;
}

/** A folded entry: one header line; its lines are kept here and shown under it only while it is open. */
interface Fold {
  header: string;
  lines: Array<{ text: string; voice: Voice }>;
  open: boolean;
}

/** A fold's header line as drawn: its state, then its text. */
function headerText(fold: Fold): string {
  return `${fold.open ? "[-]" : "[+]"} ${fold.header}`;
}

/** Rows packed per block: one string and three small arrays instead of a string and an object a row. */
const BLOCK_ROWS = 512;
/** A joint as a byte: 0 starts a line, then " " and "". */
const JOINTS: ReadonlyArray<Joint | null> = [null, " ", ""];

interface Block {
  /** The rows' text, back to back. */
  text: string;
  /** Where each row ends in `text`. */
  ends: Uint32Array;
  voices: Uint8Array;
  joints: Uint8Array;
  /** The rows' style codes, or null when no row has any. */
  styles: PackedStyles | null;
  /** Each row's fold (0: none), or null when no row has one. */
  folds: Uint32Array | null;
}

/**
 * Style codes packed as runs: Markdown styles a word or a token at a time, so a run is several
 * characters long, and a row without styles costs one run. A code a character took as many bytes
 * as the text (20,000 rows of bench:tui-like Markdown: 3.6 MB in all, as runs 2.5 MB).
 */
interface PackedStyles {
  /** Each run as two bytes: its style code, then its length (1–255). Every row starts a run of its own. */
  runs: Uint8Array;
  /** Each row's first run. */
  firstRun: Uint32Array;
}

/** The longest run a byte can count. */
const MAX_RUN = 255;
/** Styles that draw the voice's own look throughout: kept as none. */
const PLAIN_STYLES = /^\0*$/;

/**
 * The transcript as display rows, wrapped to the pane's width. Streaming text extends the last
 * row only (rows above never change), so a token costs the same at 0 or 20,000 lines. The
 * visible window is a slice, so drawing costs only what fits on screen. Rows beyond `maxRows`
 * are dropped from the top: the run's log keeps everything.
 *
 * Memory stays proportional to the text kept, with a few bytes a row: finished rows are packed
 * into blocks of BLOCK_ROWS (one flat string each, plus where each row ends, its voice and its
 * joint), and only the newest rows are objects. Appending token after token to a kept string
 * would keep every token as a separate rope node (about 70 MB per million tokens); a string and
 * an object a row cost about 80 bytes a row on top of the text, and ten thousand cells for the
 * garbage collector to walk.
 */
export class TranscriptBuffer {
  private store = emptyStore();
  private open = false;
  private top = 0;
  /** The rows at the end that the next replaceGrowing() takes back: a Markdown block still streaming. */
  private growing: { lines: StyledLine[]; voice: Voice; rows: number } | null = null;
  private readonly folds = new Map<number, Fold>();
  follow = true;
  dropped = 0;

  constructor(
    private width: number,
    private readonly maxRows = 20_000,
  ) {}

  get length(): number {
    return rowCount(this.store);
  }

  /** Appends untrusted text in a voice; a new voice starts a new line. */
  append(text: string, voice: Voice): void {
    // Plain text after a growing Markdown block: those rows stay as drawn.
    this.growing = null;
    const lines = sanitize(text).split("\n");
    for (let index = 0; index < lines.length; index++) {
      const last = this.store.tail.at(-1);
      if (index === 0 && this.open && last && last.voice === voice) this.extendLastRow(lines[index]!, voice);
      else this.push(lines[index]!, voice, null);
      this.open = index === lines.length - 1;
    }
    this.trim();
  }

  /**
   * Rendered Markdown (its text already sanitized): `final` lines stay; `growing` lines are drawn
   * until the next call takes them back. The growing rows are never packed, so taking them back
   * costs only their number.
   */
  replaceGrowing(final: StyledLine[], growing: StyledLine[], voice: Voice): void {
    this.dropGrowing();
    for (const line of final) this.push(line.text, voice, null, line.styles);
    if (growing.length) {
      this.growing = { lines: growing, voice, rows: 0 };
      for (const line of growing) this.push(line.text, voice, null, line.styles);
    }
    this.open = false;
    this.trim();
  }

  /** Takes the growing rows back off the end. */
  private dropGrowing(): void {
    const rows = Math.min(this.growing?.rows ?? 0, this.store.tail.length);
    this.store.tail.length -= rows;
    this.store.tailJoints.length -= rows;
    this.growing = null;
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
    this.relayout();
  }

  /** A folded entry: its header line, closed. `id` names it for the calls below. */
  openFold(id: number, header: string): void {
    const fold: Fold = { header: sanitize(header).replace(/\n/g, " "), lines: [], open: false };
    this.folds.set(id, fold);
    this.newline();
    this.growing = null;
    this.push(headerText(fold), "fold", null, undefined, id);
    this.open = false;
    this.trim();
  }

  /** The fold's header says something new (how its sub-run stands). */
  setFoldHeader(id: number, header: string): void {
    const fold = this.folds.get(id);
    if (!fold) return;
    fold.header = sanitize(header).replace(/\n/g, " ");
    const start = this.lastLineStart();
    const last = start === null ? undefined : this.store.tail[start];
    // The header is the last line (as while its sub-run runs): only its rows are written again.
    if (start !== null && last?.fold === id && last.voice === "fold") {
      this.store.tail.length = start;
      this.store.tailJoints.length = start;
      this.push(headerText(fold), "fold", null, undefined, id);
      this.open = false;
      this.trim();
    } else this.relayout();
  }

  /** Lines of a fold: kept, and shown under its header while it is open. */
  addToFold(id: number, text: string, voice: Voice): void {
    const fold = this.folds.get(id);
    if (!fold) return;
    const lines = sanitize(text).split("\n").map((line) => ({ text: line, voice }));
    fold.lines.push(...lines);
    if (!fold.open) return;
    const start = this.lastLineStart();
    if (start !== null && this.store.tail[start]?.fold === id) {
      for (const line of lines) this.push(line.text, line.voice, null, undefined, id);
      this.open = false;
      this.trim();
    } else this.relayout();
  }

  /**
   * Opens a closed fold (its lines shown under its header) or closes an open one; the header
   * becomes the view's top row, unless the end of the transcript fits below it. False: no such fold.
   */
  toggleFold(id: number, height: number): boolean {
    const fold = this.folds.get(id);
    if (!fold) return false;
    fold.open = !fold.open;
    this.relayout();
    const header = this.headerRow(id);
    if (header !== null) {
      const bottom = Math.max(0, this.length - height);
      this.top = Math.min(header, bottom);
      this.follow = this.top >= bottom;
    }
    return true;
  }

  /** The folds whose headers are among the rows a pane `height` rows tall shows now, top first. */
  foldsShown(height: number): number[] {
    const ids: number[] = [];
    for (const row of this.visible(height)) if (row.voice === "fold" && row.fold && !ids.includes(row.fold)) ids.push(row.fold);
    return ids;
  }

  /** The first row of a fold's header, or null when it is not kept. */
  private headerRow(id: number): number | null {
    for (let i = 0; i < this.length; i++) {
      const row = readRow(this.store, i);
      if (row.fold === id && row.voice === "fold") return i;
    }
    return null;
  }

  /** Where the last line starts in the tail, when all of it is there and nothing is growing; else null. */
  private lastLineStart(): number | null {
    const { tail, tailJoints } = this.store;
    if (this.growing || tail.length === 0) return null;
    let at = tail.length - 1;
    while (at >= 0 && tailJoints[at] != null) at--;
    return at >= 0 ? at : null;
  }

  /**
   * Every kept line wrapped again at the width, its folds as they stand: a header written as its
   * fold's now says, followed by the fold's lines when it is open; a fold's lines are never taken
   * from the rows (they come from the fold), so opening, closing and adding to a fold are alike.
   */
  private relayout(): void {
    // The growing rows are drawn again from their lines, at the new width.
    const growing = this.growing;
    this.dropGrowing();
    const old = this.store;
    const total = rowCount(old);
    this.store = emptyStore();
    for (let start = 0; start < total; ) {
      // A line is its first row and every row that continues it (the first kept row starts one).
      let end = start + 1;
      while (end < total && readJoint(old, end) != null) end++;
      const first = readRow(old, start);
      const fold = first.fold ? this.folds.get(first.fold) : undefined;
      if (fold && first.voice === "fold") {
        this.push(headerText(fold), "fold", null, undefined, first.fold);
        if (fold.open) for (const line of fold.lines) this.push(line.text, line.voice, null, undefined, first.fold);
      } else if (!first.fold) {
        const { text, styles } = joinRows(old, start, end);
        this.push(text, first.voice, null, styles);
      }
      start = end;
    }
    this.trim();
    if (growing) this.replaceGrowing([], growing.lines, growing.voice);
  }

  /** The rows to draw in a pane `height` rows tall. */
  visible(height: number): Row[] {
    const total = this.length;
    if (this.follow) this.top = Math.max(0, total - height);
    const rows: Row[] = [];
    for (let i = this.top; i < Math.min(total, this.top + height); i++) rows.push(readRow(this.store, i));
    return rows;
  }

  scroll(delta: number, height: number): void {
    const bottom = Math.max(0, this.length - height);
    this.top = Math.min(bottom, Math.max(0, (this.follow ? bottom : this.top) + delta));
    // Back at the bottom: stick to it again.
    this.follow = this.top >= bottom;
  }

  scrollTo(where: "top" | "bottom", height: number): void {
    this.top = where === "top" ? 0 : Math.max(0, this.length - height);
    this.follow = where === "bottom" || this.length <= height;
  }

  position(): { top: number; total: number } {
    return { top: this.top, total: this.length };
  }

  /** The row at the top of the view, counted from the first row ever kept (dropped rows included). */
  firstShown(): number {
    return this.dropped + this.top;
  }

  /** Wraps `text` (with its `styles`, if any) and adds its rows; the first continues the row above by `joint`. */
  private push(text: string, voice: Voice, joint: Joint | null, styles?: string, fold?: number): void {
    if (styles !== undefined && PLAIN_STYLES.test(styles)) styles = undefined;
    const joints: Joint[] = [];
    const rows = styles === undefined ? wrap(text, this.width, voice, joints) : wrapStyled(text, styles, this.width, voice, joints);
    if (fold) for (const row of rows) row.fold = fold;
    const { tail, tailJoints } = this.store;
    tail.push(...rows);
    tailJoints.push(joint, ...joints);
    if (this.growing) this.growing.rows += rows.length;
    // Pack all but the last row, which streaming may still extend, and the growing rows.
    while (tail.length - (this.growing?.rows ?? 0) > BLOCK_ROWS) this.store.blocks.push(pack(tail.splice(0, BLOCK_ROWS), tailJoints.splice(0, BLOCK_ROWS)));
  }

  private extendLastRow(text: string, voice: Voice): void {
    const last = this.store.tail.pop()!;
    const joint = this.store.tailJoints.pop()!;
    this.push(last.text + text, voice, joint, last.styles === undefined ? undefined : last.styles + "\0".repeat(text.length), last.fold);
  }

  private trim(): void {
    let over = this.length - this.maxRows;
    if (over <= 0) return;
    this.dropped += over;
    this.top = Math.max(0, this.top - over);
    const store = this.store;
    while (over > 0 && store.blocks.length) {
      const take = Math.min(over, BLOCK_ROWS - store.head);
      store.head += take;
      over -= take;
      if (store.head === BLOCK_ROWS) {
        store.blocks.shift();
        store.head = 0;
      }
    }
    store.tail.splice(0, over);
    store.tailJoints.splice(0, over);
  }
}

/** The rows kept: packed blocks, then the newest rows as objects. */
interface Store {
  blocks: Block[];
  /** Rows of the first block already dropped from the top. */
  head: number;
  /** The newest rows, not yet packed; the last one is the one streaming text extends. */
  tail: Row[];
  /**
   * How each tail row continues the one above: null when it starts a line, " " when wrapping
   * dropped a space between them, "" when it broke a word.
   */
  tailJoints: Array<Joint | null>;
}

function emptyStore(): Store {
  return { blocks: [], head: 0, tail: [], tailJoints: [] };
}

function rowCount(store: Store): number {
  return store.blocks.length * BLOCK_ROWS - store.head + store.tail.length;
}

/** The text (and styles) of the line made of rows start…end-1, as it was before wrapping. */
function joinRows(store: Store, start: number, end: number): { text: string; styles?: string } {
  const first = readRow(store, start);
  let text = first.text;
  let styles = first.styles;
  for (let i = start + 1; i < end; i++) {
    const row = readRow(store, i);
    const joint = readJoint(store, i)!;
    // A row of a styled line may have none of its own (its part of the line was plain).
    if (styles === undefined && row.styles !== undefined) styles = "\0".repeat(text.length);
    text += joint + row.text;
    // What wrapping took out takes the style of the character before it.
    if (styles !== undefined) styles += (joint && styles.slice(-1)) + (row.styles ?? "\0".repeat(row.text.length));
  }
  return { text, styles };
}

function pack(rows: Row[], joints: Array<Joint | null>): Block {
  const ends = new Uint32Array(rows.length);
  const voices = new Uint8Array(rows.length);
  const jointCodes = new Uint8Array(rows.length);
  let end = 0;
  rows.forEach((row, i) => {
    end += row.text.length;
    ends[i] = end;
    voices[i] = VOICES.indexOf(row.voice);
    jointCodes[i] = JOINTS.indexOf(joints[i]!);
  });
  const styles = rows.some((row) => row.styles !== undefined) ? packStyles(rows) : null;
  const folds = rows.some((row) => row.fold) ? Uint32Array.from(rows, (row) => row.fold ?? 0) : null;
  return { text: rows.map((row) => row.text).join(""), ends, voices, joints: jointCodes, styles, folds };
}

function packStyles(rows: Row[]): PackedStyles {
  const firstRun = new Uint32Array(rows.length);
  let runs: Uint8Array<ArrayBuffer> = new Uint8Array(256);
  let count = 0;
  const add = (code: number, length: number) => {
    if (2 * count + 2 > runs.length) runs = grow(runs);
    runs[2 * count] = code;
    runs[2 * count + 1] = length;
    count++;
  };
  rows.forEach((row, i) => {
    firstRun[i] = count;
    // A row without styles is code 0 throughout.
    const codeAt = (at: number) => row.styles?.charCodeAt(at) ?? 0;
    for (let at = 0; at < row.text.length; ) {
      const code = codeAt(at);
      let end = at + 1;
      while (end < row.text.length && end - at < MAX_RUN && codeAt(end) === code) end++;
      add(code, end - at);
      at = end;
    }
  });
  return { runs: runs.slice(0, 2 * count), firstRun };
}

function grow(bytes: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const bigger = new Uint8Array(bytes.length * 2);
  bigger.set(bytes);
  return bigger;
}

/** Row `i`'s style codes, read back from its runs; undefined when all draw the voice's own look. */
function unpackStyles(styles: PackedStyles, i: number, length: number): string | undefined {
  const pieces: string[] = [];
  let styled = false;
  for (let run = styles.firstRun[i]!, left = length; left > 0; run++) {
    const code = styles.runs[2 * run]!;
    const size = styles.runs[2 * run + 1]!;
    styled ||= code !== 0;
    pieces.push(String.fromCharCode(code).repeat(size));
    left -= size;
  }
  return styled ? pieces.join("") : undefined;
}

/** Where row `index` of the kept rows (0 is the oldest kept) is: a packed block and its place, or the tail. */
function locate(store: Store, index: number): { block: Block; i: number } | { tail: number } {
  const at = index + store.head;
  const block = store.blocks[Math.floor(at / BLOCK_ROWS)];
  return block ? { block, i: at % BLOCK_ROWS } : { tail: at - store.blocks.length * BLOCK_ROWS };
}

function readRow(store: Store, index: number): Row {
  const where = locate(store, index);
  if ("tail" in where) return store.tail[where.tail]!;
  const { block, i } = where;
  const [start, end] = [i === 0 ? 0 : block.ends[i - 1], block.ends[i]];
  const row: Row = { text: block.text.slice(start, end), voice: VOICES[block.voices[i]!]! };
  const styles = block.styles ? unpackStyles(block.styles, i, end! - start!) : undefined;
  if (styles !== undefined) row.styles = styles;
  if (block.folds?.[i]) row.fold = block.folds[i];
  return row;
}

function readJoint(store: Store, index: number): Joint | null {
  const where = locate(store, index);
  return "tail" in where ? store.tailJoints[where.tail]! : JOINTS[where.block.joints[where.i]!]!;
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

/** wrap() for a line with a style code per character: each row gets the styles of its slice. */
export function wrapStyled(text: string, styles: string, width: number, voice: Voice, joints: Joint[] = []): Row[] {
  const first = joints.length;
  const rows = wrap(text, width, voice, joints);
  let at = 0;
  rows.forEach((row, index) => {
    if (index > 0) at += joints[first + index - 1]!.length;
    row.styles = styles.slice(at, at + row.text.length);
    at += row.text.length;
  });
  return rows;
}
