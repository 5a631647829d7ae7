/**
 * Properties of edit_file's loose matcher (src/files/text-edit.ts): when `old` does not occur
 * exactly, a loose match is made only where it is the one place that fits, and it replaces
 * nothing but that place.
 */
import fc from "fast-check";
import { describe, expect, test } from "bun:test";
import { applyEdit } from "../../src/files/text-edit.ts";
import { settings } from "../helpers/property.ts";

/** A few words, so the same line comes back often and more than one place may fit. */
const word = fc.constantFrom("a", "b", "if (x) {", "}", "return y;", "x = 1", "é", "");
const indent = fc.constantFrom("", " ", "  ", "    ", "\t", "\t ", "        ");
const trailing = fc.constantFrom("", "", " ", "\t", "  ");
const eol = fc.constantFrom("\n", "\n", "\r\n");

const line = fc.record({ indent, word, trailing, eol });
type Line = { indent: string; word: string; trailing: string; eol: string };
const joined = (lines: Line[]) => lines.map((l) => l.indent + l.word + l.trailing + l.eol).join("");

/** How `old` is re-typed from the file: indentation shifted or rescaled, trailing whitespace and line breaks changed. */
const retyping = fc.record({
  shift: fc.constantFrom("", "", " ", "  ", "\t", "-1", "-2"),
  scale: fc.constantFrom(1, 1, 2, 0.5),
  trailing,
  eol,
  lastBreak: fc.boolean(),
});

/**
 * A file and an `old` to look for in it: mostly a stretch of the file's own lines re-typed (so
 * loose matches happen, and often more than one), sometimes lines of the same words drawn anew.
 */
const scenario = fc
  .tuple(fc.array(line, { minLength: 1, maxLength: 14 }), fc.nat(), fc.integer({ min: 1, max: 4 }), retyping, fc.array(line, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.string({ maxLength: 12 }))
  .map(([fileLines, from, length, how, drawn, fromFile, replacement]) => {
    const start = from % fileLines.length;
    const picked = fromFile ? fileLines.slice(start, start + length) : drawn;
    const retyped = picked.map((l) => {
      let lineIndent: string = l.indent;
      if (how.scale !== 1 && /^ *$/.test(lineIndent)) lineIndent = " ".repeat(Math.floor(lineIndent.length * how.scale));
      if (how.shift.startsWith("-")) lineIndent = lineIndent.slice(Number(how.shift.slice(1)));
      else lineIndent = how.shift + lineIndent;
      return lineIndent + l.word + how.trailing;
    });
    const old = retyped.join(how.eol) + (how.lastBreak ? how.eol : "");
    return { text: joined(fileLines), old, replacement };
  });

interface Line2 {
  start: number;
  end: number;
}

/** The file's lines as the matcher counts them: split at "\n", a last line after a final break included. */
function linesOf(text: string): Line2[] {
  const lines: Line2[] = [];
  let start = 0;
  for (;;) {
    const at = text.indexOf("\n", start);
    if (at === -1) return [...lines, { start, end: text.length }];
    lines.push({ start, end: at > start && text[at - 1] === "\r" ? at - 1 : at });
    start = at + 1;
  }
}

/** How many lines `old` covers: its line breaks, a final one not counted. */
const oldLineCount = (old: string) => old.replace(/\r?\n$/, "").split(/\r?\n/).length;

describe("a loose match", () => {
  test("is made exactly when one stretch of whole lines fits on its own, and changes nothing outside it", () => {
    fc.assert(
      fc.property(scenario, ({ text, old, replacement }) => {
        fc.pre(old.length > 0 && !text.includes(old));
        const outcome = applyEdit(text, { old, new: replacement });
        // Each stretch of the file's lines as long as `old`, asked on its own: does `old` fit it?
        const lines = linesOf(text);
        const count = oldLineCount(old);
        const fitting: number[] = [];
        for (let first = 0; first + count <= lines.length; first++) {
          const stretch = text.slice(lines[first]!.start, lines[first + count - 1]!.end);
          if (applyEdit(stretch, { old, new: replacement }).ok) fitting.push(first);
        }
        if (!outcome.ok) {
          expect(fitting.length).not.toBe(1);
          if (fitting.length > 1) expect(outcome.problem.detail).toContain(`fits ${fitting.length} places`);
          return;
        }
        expect(outcome.loose).not.toBeNull();
        expect(fitting.length).toBe(1);
        const first = lines[fitting[0]!]!;
        const last = lines[fitting[0]! + count - 1]!;
        const [span] = outcome.spans;
        expect(span!.start).toBe(first.start);
        // Before the stretch and after it (its last line break, when `old` ends with one, is part of it), nothing changed.
        const end = /\r?\n$/.test(old) ? text.indexOf("\n", last.end) + 1 || text.length : last.end;
        expect(outcome.text.slice(0, span!.start)).toBe(text.slice(0, first.start));
        expect(outcome.text.slice(span!.end)).toBe(text.slice(end));
      }),
      settings(40_401, 1000),
    );
  });

  test("is refused once the place it fits occurs twice", () => {
    fc.assert(
      fc.property(scenario, ({ text, old, replacement }) => {
        fc.pre(old.length > 0 && !text.includes(old));
        const once = applyEdit(text, { old, new: replacement });
        fc.pre(once.ok);
        const twice = `${text}\n${text}`;
        fc.pre(!twice.includes(old));
        const outcome = applyEdit(twice, { old, new: replacement });
        expect(outcome.ok).toBe(false);
        if (!outcome.ok) expect(outcome.problem.detail).toMatch(/fits \d+ places/);
      }),
      settings(40_402, 300),
    );
  });
});
