import type { Widgets } from "./blessed.ts";
import { plainAscii, unicode } from "./blessed.ts";
import { belowTopTier } from "../platform/jit.ts";

/* The cell writer: rows of text put into blessed's cells directly, rows scrolled in place, fewer bytes per frame. */

/** A cell of blessed's screen buffers: its attribute (colours and flags packed) and its character. */
type Cell = [attr: number, ch: string];
type Row = Cell[] & { dirty?: boolean };

/** Never a character on screen: a cell of the terminal's record marked so, differs from every cell. */
const UNKNOWN = "\u0000";

/**
 * blessed skips a cell that did not change with "cursor forward" (`ESC [ n C`, 4 bytes), even
 * a single one between two changed words; a new row of text costs a quarter more bytes than its
 * characters. Runs of at most this many unchanged cells are written again instead, where writing
 * them costs no more: same colours as the changed cell before them, plain ASCII (no line-drawing
 * mode to switch).
 */
const REWRITE_RUN = 3;

/** Whether cell `x` of a row is what the terminal already shows there. */
function unchanged(line: Row, old: Row, x: number): boolean {
  return line[x]![0] === old[x]![0] && line[x]![1] === old[x]![1];
}

/** Marks the short unchanged runs of the dirty rows in `lines` as unknown in `drawn`, so blessed writes them. */
export function rewriteShortRuns(lines: Row[], drawn: Row[], start: number, end: number): void {
  for (let y = start; y <= end; y++) {
    const line = lines[y];
    const old = drawn[y];
    if (!line?.dirty || !old) continue;
    for (let x = 1; x < line.length; x++) {
      const before = line[x - 1]!;
      // A run starts after a changed cell.
      if (!unchanged(line, old, x) || unchanged(line, old, x - 1)) continue;
      let runEnd = x;
      while (runEnd < line.length && runEnd - x <= REWRITE_RUN && unchanged(line, old, runEnd)) runEnd++;
      // Only a short run with a changed cell after it: a long one, or the rest of a row, is skipped cheaper.
      if (runEnd - x > REWRITE_RUN || runEnd === line.length || !plainAscii(before[1])) continue;
      let same = true;
      for (let i = x; i < runEnd && same; i++) same = line[i]![0] === before[0] && plainAscii(line[i]![1]);
      if (same) for (let i = x; i < runEnd; i++) old[i]![1] = UNKNOWN;
      x = runEnd;
    }
  }
}

/** A cursor move that another one follows at once does nothing; blessed starts every row it draws with one. */
export function dropIdleMoves(output: string): string {
  return output.replace(/\x1b\[\d+;1H(?=\x1b\[\d+;\d+H)/g, "");
}

/**
 * Fewer bytes per frame, the same screen: what a user pays over SSH, in a slow terminal or on
 * battery (scripts/bench-tui.ts measures it).
 */
export function drawEconomically(screen: Widgets.Screen): void {
  const internals = screen as unknown as { lines: Row[]; olines: Row[]; draw(start: number, end: number): void; program: { _write(text: string): unknown } };
  const draw = internals.draw;
  internals.draw = function (this: typeof internals, start: number, end: number) {
    rewriteShortRuns(this.lines, this.olines, start, end);
    return draw.call(this, start, end);
  };
  const write = internals.program._write;
  internals.program._write = function (this: unknown, text: string) {
    return write.call(this, dropIdleMoves(text));
  };
}

/** The parts of blessed's screen that scrolling rows touches. */
interface ScrollInternals {
  lines: Row[];
  olines: Row[];
  dattr: number;
  height: number;
  _buf: string;
  tput: { strings: Record<string, unknown>; csr(top: number, bottom: number): string; cup(y: number, x: number): string; dl(n: number): string; il(n: number): string };
}

/**
 * Scrolls rows `top`..`bottom` of the terminal by `n` rows (up when positive: rows leave at the
 * top, blank ones come in at the bottom; down when negative) with a scroll region, and blessed's
 * two records of the screen (`lines`, what to show, and `olines`, what the terminal shows) with
 * them. What blessed's Screen.deleteLine and insertLine do, but the rows that leave come back as
 * the blank ones instead of two new rows of cells being made for every row scrolled (a tenth of a
 * frame's time while text pours in, and as much garbage). Does nothing on a terminal without a
 * scroll region: the frame's diff then writes every row.
 */
export function scrollRows(screen: Widgets.Screen, n: number, top: number, bottom: number): void {
  const s = screen as unknown as ScrollInternals;
  const { strings } = s.tput;
  if (n === 0 || !strings.change_scroll_region || !strings.delete_line || !strings.insert_line) return;
  s._buf += s.tput.csr(top, bottom) + s.tput.cup(top, 0) + (n > 0 ? s.tput.dl(n) : s.tput.il(-n)) + s.tput.csr(0, s.height - 1);
  for (const rows of [s.lines, s.olines]) rotateRows(rows, n, top, bottom, s.dattr);
}

/** Moves rows top..bottom by `n` within that range; the rows pushed out come back blank at the other end. */
export function rotateRows(rows: Row[], n: number, top: number, bottom: number, blankAttr: number): void {
  const count = Math.min(Math.abs(n), bottom - top + 1);
  const leaving = n > 0 ? rows.slice(top, top + count) : rows.slice(bottom - count + 1, bottom + 1);
  if (n > 0) rows.copyWithin(top, top + count, bottom + 1);
  else rows.copyWithin(top + count, top, bottom - count + 1);
  const first = n > 0 ? bottom - count + 1 : top;
  leaving.forEach((row, i) => {
    for (const cell of row) {
      cell[0] = blankAttr;
      cell[1] = " ";
    }
    row.dirty = false;
    rows[first + i] = row;
  });
}

/** Text that blessed lays out one cell per character, with nothing to look up. */
const PLAIN_ROW = /^[\x20-\x7e]*$/;

/**
 * Puts one row of text (sanitized, no tags) into cells `xi`..`xl - 1` of `line` in `attr`, then
 * blanks in `fill` up to `xl`: the cells blessed's own render would make of the same row in a box
 * without tags, but without parsing tags and escape codes, wrapping, or measuring each character
 * on every frame. A wide character takes its cell and the placeholder blessed puts after it; a
 * combining one joins the character before it. A cell is written, and the row marked dirty, only
 * where it changed. `styles`, if given, has a code per character of `text`: the character's
 * attribute is `styleAttrs[code]` (code 0 is `attr`).
 */
export function writeRow(line: Row, xi: number, xl: number, text: string, attr: number, fill: number, styles?: string, styleAttrs?: readonly number[]): void {
  let x = xi;
  const styled = styles !== undefined && styleAttrs !== undefined;
  if (PLAIN_ROW.test(text)) {
    for (let i = 0; i < text.length && x < xl; i++) putCell(line, x++, styled ? styleAt(styles, styleAttrs, i, attr) : attr, text[i]!);
  } else {
    // blessed's parseContent marks the cell after each wide character with \x03 (sanitized text
    // has none of its own), so `source` counts the characters of `text` to find their styles.
    const content = text.replace(unicode.chars.all, "$1\x03");
    let i = 0;
    let source = 0;
    const next = () => {
      const point = content.codePointAt(i)!;
      const ch = point > 0xffff ? content.slice(i, i + 2) : content[i]!;
      i += ch.length;
      return { ch, combining: unicode.combining[point] === true };
    };
    while (i < content.length && x < xl) {
      const at = source;
      let { ch, combining } = next();
      if (ch !== "\x03") source += ch.length;
      if (combining) continue; // nothing on this row to join
      while (i < content.length) {
        const after = i;
        const mark = next();
        if (!mark.combining) {
          i = after;
          break;
        }
        source += mark.ch.length;
        ch += mark.ch;
      }
      const from = ch === "\x03" ? at - 1 : at;
      putCell(line, x++, styled ? styleAt(styles, styleAttrs, from, attr) : attr, ch);
    }
  }
  while (x < xl) putCell(line, x++, fill, " ");
}

/** Cell `x` of `line` made `attr` and `ch`, and the row marked dirty, where that is a change. */
function putCell(line: Row, x: number, attr: number, ch: string): void {
  const cell = line[x];
  if (!cell || (cell[0] === attr && cell[1] === ch)) return;
  cell[0] = attr;
  cell[1] = ch;
  line.dirty = true;
}

/** The attribute of character `index` of a styled row: its style code's, else the row's own. */
function styleAt(styles: string, styleAttrs: readonly number[], index: number, attr: number): number {
  return styleAttrs[styles.charCodeAt(index)] ?? attr;
}

// Per cell, every frame (belowTopTier says why).
belowTopTier(writeRow, putCell, styleAt, rewriteShortRuns, unchanged, plainAscii);
