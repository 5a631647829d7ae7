import { describe, expect, test } from "bun:test";
import { FOLD_OVER_LINES, LineEditor } from "../../../src/tui/composer/line-editor.ts";

/** An editor holding `text`, the cursor where `|` is. */
function at(marked: string): LineEditor {
  const editor = new LineEditor();
  editor.insert(marked.replace("|", ""));
  editor.cursor = marked.indexOf("|");
  return editor;
}

const shown = (editor: LineEditor) => editor.text.slice(0, editor.cursor) + "|" + editor.text.slice(editor.cursor);

describe("the line editor's keys, as a shell's", () => {
  const cases: Array<[string, (editor: LineEditor) => void, string, string]> = [
    ["Ctrl-A: start of the line", (e) => e.lineStart(), "one\ntw|o", "one\n|two"],
    ["Ctrl-A on the first line", (e) => e.lineStart(), "on|e\ntwo", "|one\ntwo"],
    ["Ctrl-E: end of the line", (e) => e.lineEnd(), "o|ne\ntwo", "one|\ntwo"],
    ["Ctrl-E on the last line", (e) => e.lineEnd(), "one\nt|wo", "one\ntwo|"],
    ["Ctrl-U: to the start of the line", (e) => e.killToLineStart(), "one\ntw|o", "one\n|o"],
    ["Ctrl-K: to the end of the line", (e) => e.killToLineEnd(), "o|ne\ntwo", "o|\ntwo"],
    ["Ctrl-K at a line's end joins the next", (e) => e.killToLineEnd(), "one|\ntwo", "one|two"],
    ["Ctrl-W: the word before, and the spaces after it", (e) => e.killWordBefore(), "git commit -m  |x", "git commit |x"],
    ["Ctrl-W takes punctuation with the word", (e) => e.killWordBefore(), "see src/a.ts|", "see |"],
    ["Alt-B: to the start of the word", (e) => e.wordLeft(), "fix the pars|er", "fix the |parser"],
    ["Alt-B from a word's start: the previous word", (e) => e.wordLeft(), "fix the |parser", "fix |the parser"],
    ["Alt-F: to the end of the word", (e) => e.wordRight(), "fix t|he parser", "fix the| parser"],
    ["Alt-F over punctuation", (e) => e.wordRight(), "a|.b.c", "a.b|.c"],
    ["←", (e) => e.left(), "ab|c", "a|bc"],
    ["← at the start", (e) => e.left(), "|abc", "|abc"],
    ["→", (e) => e.right(), "a|bc", "ab|c"],
    ["→ at the end", (e) => e.right(), "abc|", "abc|"],
    ["Backspace", (e) => e.backspace(), "ab|c", "a|c"],
    ["Backspace at the start", (e) => e.backspace(), "|abc", "|abc"],
    ["Delete", (e) => e.delete(), "a|bc", "a|c"],
    ["Delete at the end", (e) => e.delete(), "abc|", "abc|"],
    ["Backspace takes an emoji whole", (e) => e.backspace(), "ok 👍|", "ok |"],
    ["← steps over an emoji whole", (e) => e.left(), "a👍|", "a|👍"],
    ["→ steps over an emoji whole", (e) => e.right(), "a|👍b", "a👍|b"],
    ["a newline typed", (e) => e.insert("\n"), "one|two", "one\n|two"],
  ];
  for (const [name, act, before, after] of cases) {
    test(name, () => {
      const editor = at(before);
      act(editor);
      expect(shown(editor)).toBe(after);
    });
  }
});

describe("pastes", () => {
  test("a short paste is text, newlines and all, at the cursor; CR LF becomes LF", () => {
    const editor = at("see | here");
    editor.paste("a\r\nb\rc");
    expect(shown(editor)).toBe("see a\nb\nc| here");
    expect(editor.message()).toBe("see a\nb\nc here");
  });

  test(`a paste of more than ${FOLD_OVER_LINES} lines is one fold: one step, one Backspace, sent whole`, () => {
    const long = Array.from({ length: 40 }, (_, i) => `at frame ${i}`).join("\n");
    const editor = at("error: |");
    editor.paste(long);
    expect(editor.text.length).toBe("error: ".length + 1);
    expect(editor.foldOf(editor.text.at(-1)!)).toBe("[pasted 40 lines]");
    expect(editor.message()).toBe(`error: ${long}`);
    editor.insert(" why?");
    expect(editor.message()).toBe(`error: ${long} why?`);
    editor.cursor = "error: ".length + 1;
    editor.backspace();
    expect(editor.message()).toBe("error:  why?");
  });

  test(`exactly ${FOLD_OVER_LINES} lines are shown as typed`, () => {
    const editor = new LineEditor();
    const ten = Array.from({ length: FOLD_OVER_LINES }, (_, i) => `${i}`).join("\n") + "\n";
    editor.paste(ten);
    expect(editor.text).toBe(ten);
  });

  test("a fold's character typed or recalled is not taken for a paste", () => {
    const editor = new LineEditor();
    editor.paste(Array.from({ length: 20 }, () => "x").join("\n"));
    editor.insert("\ue000");
    expect(editor.message().endsWith("\ufffd")).toBe(true);
    editor.set("\ue000 recalled");
    expect(editor.message()).toBe("\ufffd recalled");
    expect(editor.foldOf("\ue000")).toBeNull();
  });

  test("clear forgets the text and the folds", () => {
    const editor = new LineEditor();
    editor.paste(Array.from({ length: 20 }, () => "x").join("\n"));
    editor.clear();
    expect(editor.empty).toBe(true);
    expect(editor.foldOf("\ue000")).toBeNull();
  });
});
