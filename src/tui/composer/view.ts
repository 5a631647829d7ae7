/**
 * How the message being typed is drawn: its text soft-wrapped into rows of the input's width,
 * and where the cursor is. Pure: text and width in, rows out.
 */
import { sanitize } from "../sanitize.ts";
import { nextStop } from "./line-editor.ts";

export interface VisualRow {
  /** Index in the text where the row starts. */
  start: number;
  /** The text indices of the row's characters and, when it ends a line, the line's end. */
  stops: number[];
  /** The column each stop begins at. */
  cols: number[];
  /** What the terminal shows: escaped, folds drawn as their label. */
  shown: string;
}

/** How one character is shown (its escaped form, or a fold's label). */
export type Shown = (char: string) => string;

/**
 * Rows of at most `width - 1` columns, so the cursor always has a cell after the last character.
 * A newline ends a row; a row too long wraps before the character that does not fit.
 */
export function visualRows(text: string, width: number, show: Shown = sanitize): VisualRow[] {
  const room = Math.max(1, width - 1);
  const rows: VisualRow[] = [];
  let row: VisualRow = { start: 0, stops: [], cols: [], shown: "" };
  let col = 0;
  for (let at = 0; at < text.length; ) {
    const next = nextStop(text, at);
    const char = text.slice(at, next);
    if (char === "\n") {
      row.stops.push(at);
      row.cols.push(col);
      rows.push(row);
      row = { start: next, stops: [], cols: [], shown: "" };
      col = 0;
      at = next;
      continue;
    }
    const shown = show(char);
    const width = Bun.stringWidth(shown);
    if (col + width > room && row.stops.length) {
      rows.push(row);
      row = { start: at, stops: [], cols: [], shown: "" };
      col = 0;
    }
    row.stops.push(at);
    row.cols.push(col);
    row.shown += shown;
    col += width;
    at = next;
  }
  row.stops.push(text.length);
  row.cols.push(col);
  rows.push(row);
  return rows;
}

/** The row (the last one starting at or before it) and column of the cursor. */
export function cursorPlace(rows: VisualRow[], cursor: number): { row: number; col: number } {
  let index = 0;
  while (index + 1 < rows.length && rows[index + 1]!.start <= cursor) index++;
  const row = rows[index]!;
  const stop = row.stops.indexOf(cursor);
  return { row: index, col: stop === -1 ? row.cols.at(-1)! : row.cols[stop]! };
}

/**
 * The cursor one row up (`delta` -1) or down, at the same column or the nearest before it; null
 * on the first row going up or the last going down (where ↑ and ↓ walk the history instead).
 */
export function verticalMove(rows: VisualRow[], cursor: number, delta: -1 | 1): number | null {
  const { row, col } = cursorPlace(rows, cursor);
  const target = rows[row + delta];
  if (!target) return null;
  let best = target.stops[0]!;
  target.cols.forEach((at, index) => {
    if (at <= col) best = target.stops[index]!;
  });
  return best;
}
