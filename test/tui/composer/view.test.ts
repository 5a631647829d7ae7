import { describe, expect, test } from "bun:test";
import { cursorPlace, verticalMove, visualRows } from "../../../src/tui/composer/view.ts";

describe("the input's rows", () => {
  test("a newline ends a row; a long line wraps, leaving a column for the cursor", () => {
    const rows = visualRows("abcdefgh\nij", 5);
    expect(rows.map((row) => row.shown)).toEqual(["abcd", "efgh", "ij"]);
    expect(cursorPlace(rows, 4)).toEqual({ row: 1, col: 0 }); // the wrap point belongs to the row below
    expect(cursorPlace(rows, 8)).toEqual({ row: 1, col: 4 }); // the end of a line, before its newline
    expect(cursorPlace(rows, 11)).toEqual({ row: 2, col: 2 });
  });

  test("control characters are shown escaped, wide characters take two columns", () => {
    const rows = visualRows("a\u001b[2J幅", 20);
    expect(rows[0]!.shown).toBe("a^[[2J幅");
    expect(cursorPlace(rows, 6)).toEqual({ row: 0, col: 8 });
  });

  test("the text ends in a newline: the cursor is on an empty last row", () => {
    const rows = visualRows("one\n", 10);
    expect(rows).toHaveLength(2);
    expect(cursorPlace(rows, 4)).toEqual({ row: 1, col: 0 });
  });

  test("↑ and ↓ keep the column, or the nearest before it; null past the first and last rows", () => {
    const text = "a long line\nab\nanother line";
    const rows = visualRows(text, 40);
    expect(verticalMove(rows, 7, 1)).toBe(14); // col 7 → the end of "ab"
    expect(verticalMove(rows, 13, 1)).toBe(16); // col 1 → col 1 of "another line"
    expect(verticalMove(rows, 16, -1)).toBe(13);
    expect(verticalMove(rows, 3, -1)).toBeNull();
    expect(verticalMove(rows, text.length, 1)).toBeNull();
  });
});
