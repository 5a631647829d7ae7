import { describe, expect, test } from "bun:test";
import { applyEdit, applyEdits, indentMap, lineEnding, withLineEndings } from "../../src/files/text-edit.ts";

/** The outcome of one edit as [text after, how it matched] or the refusal's first words. */
function edit(text: string, old: string, replacement: string, replaceAll = false): { text: string; loose: string | null } | string {
  const outcome = applyEdit(text, { old, new: replacement, replace_all: replaceAll });
  return outcome.ok ? { text: outcome.text, loose: outcome.loose } : `${outcome.problem.what}${outcome.problem.detail}`;
}

const FOUR = "class A {\n    run() {\n        if (x) {\n            go();\n        }\n    }\n}\n";

describe("loose matches that are unique are taken, and say how they matched", () => {
  const rows: Array<[label: string, file: string, old: string, replacement: string, after: string, how: RegExp]> = [
    [
      "a block re-typed with two spaces where the file has four",
      FOUR,
      "if (x) {\n  go();\n}",
      "if (x) {\n  go();\n  stop();\n}",
      "class A {\n    run() {\n        if (x) {\n            go();\n            stop();\n        }\n    }\n}\n",
      /indentation of 2 spaces read as 4, shifted by 8 spaces/,
    ],
    [
      "the same block at the right depth but with two-space steps",
      FOUR,
      "        if (x) {\n          go();\n        }\n",
      "        if (y) {\n          go();\n        }\n",
      "class A {\n    run() {\n        if (y) {\n            go();\n        }\n    }\n}\n",
      /indentation of 2 spaces read as 4/,
    ],
    [
      "a block typed without its indentation: the shift is added to `new`",
      FOUR,
      "if (x) {\n    go();\n}\n",
      "if (x) {\n    go(1);\n}\n",
      FOUR.replace("go();", "go(1);"),
      /indentation shifted by 8 spaces/,
    ],
    [
      "a block indented deeper than the file: the shift is taken from `new`",
      "a:\n  b: 1\n  c: 2\n",
      "      b: 1\n      c: 2",
      "      b: 10\n      c: 20",
      "a:\n  b: 10\n  c: 20\n",
      /indentation shifted back by 4 spaces/,
    ],
    [
      "an LF `old` on a CRLF file: `new` gets CRLF",
      "one\r\ntwo\r\nthree\r\n",
      "one\ntwo\n",
      "uno\ndos\n",
      "uno\r\ndos\r\nthree\r\n",
      /line endings/,
    ],
    [
      "trailing spaces in the file that the model left out",
      "let a = 1;   \nlet b = 2;\t\nlet c = 3;\n",
      "let a = 1;\nlet b = 2;",
      "let a = 10;\nlet b = 20;",
      "let a = 10;\nlet b = 20;\nlet c = 3;\n",
      /trailing whitespace/,
    ],
    [
      "trailing spaces in `old` the file does not have",
      "x = 1\ny = 2\n",
      "x = 1  \ny = 2 ",
      "x = 3\ny = 4",
      "x = 3\ny = 4\n",
      /trailing whitespace/,
    ],
    [
      "tabs shifted by one tab",
      "func f() {\n\tif a {\n\t\tb()\n\t}\n}\n",
      "if a {\n\tb()\n}",
      "if a {\n\tc()\n}",
      "func f() {\n\tif a {\n\t\tc()\n\t}\n}\n",
      /indentation shifted by 1 tab/,
    ],
    [
      "blank lines inside the block match blank lines with spaces",
      "a\n    \nb\n",
      "a\n\nb",
      "a\n\nc",
      "a\n\nc\n",
      /trailing whitespace/,
    ],
  ];
  for (const [label, file, old, replacement, after, how] of rows) {
    test(label, () => {
      const result = edit(file, old, replacement);
      expect(typeof result).toBe("object");
      const { text, loose } = result as { text: string; loose: string };
      expect(text).toBe(after);
      expect(loose).toMatch(/^matched loosely: /);
      expect(loose).toMatch(how);
    });
  }
});

describe("loose matches that are not unique, or not the same text, are refused", () => {
  const rows: Array<[label: string, file: string, old: string, refusal: RegExp]> = [
    ["two places fit once indentation is set aside", "  a();\n  b();\n    a();\n    b();\n", "a();\nb();", /fits 2 places \(lines 1, 3\)/],
    ["two places fit once trailing spaces are set aside", "x \ny\nx\t\ny\n", "x\ny\n", /fits 2 places/],
    ["tabs are not read as spaces", "\tif a {\n\t\tb()\n\t}\n", "    if a {\n        b()\n    }", /^does not occur \(not even/],
    ["spaces are not read as tabs", "    one\n    two\n", "\tone\n\ttwo", /^does not occur \(not even/],
    ["an indentation that is not uniform", "a\n  b\n    c\n", "a\n   b\n c", /^does not occur/],
    ["different text is not matched however the whitespace is", "let a = 1;\n", "let a = 2;\n", /^does not occur/],
    ["a blank line in `old` where the file has text", "a\nb\nc\n", "a\n\nc", /^does not occur/],
    ["only blank lines", "a\n\n\nb\n", "  \n \n", /^does not occur/],
    ["replace_all takes exact matches only", "  x\n  x\n", "x \n", /^does not occur exactly$/],
  ];
  for (const [label, file, old, refusal] of rows) {
    test(label, () => {
      const result = edit(file, old, "NEW", label.startsWith("replace_all"));
      expect(typeof result).toBe("string");
      expect(result as string).toMatch(refusal);
    });
  }
});

describe("exact matches come first", () => {
  test("an exact unique match is taken as it is, and `new` gets the file's CRLF", () => {
    expect(edit("a\r\nb\r\nc\r\n", "b", "b1\nb2")).toEqual({ text: "a\r\nb1\r\nb2\r\nc\r\n", loose: null });
  });

  test("exact text that occurs twice is refused, even though loose matching could not help", () => {
    expect(edit("a\na\n", "a", "b")).toBe("occurs 2 times");
  });

  test("replace_all replaces every exact occurrence, replacement patterns literal", () => {
    expect(edit("x.x.x", "x", "$&y", true)).toEqual({ text: "$&y.$&y.$&y", loose: null });
  });

  test("an LF file keeps a CRLF `new` as written (only CRLF files convert)", () => {
    expect(edit("a\nb\n", "b", "c\r\nd")).toEqual({ text: "a\nc\r\nd\n", loose: null });
  });
});

describe("several edits: in order, all or none", () => {
  test("each edit sees the text the one before left", () => {
    const outcome = applyEdits("alpha beta\n", [
      { old: "alpha", new: "gamma" },
      { old: "gamma beta", new: "delta" },
    ]);
    expect(outcome).toMatchObject({ ok: true, text: "delta\n" });
  });

  test("a failing second edit fails the whole list and names its index", () => {
    const outcome = applyEdits("one two\n", [
      { old: "one", new: "1" },
      { old: "three", new: "3" },
    ]);
    expect(outcome).toMatchObject({ ok: false, index: 1, problem: { what: "does not occur" } });
  });

  test("the spans of earlier edits move with later ones", () => {
    const outcome = applyEdits("a\nb\nc\n", [
      { old: "c", new: "C" },
      { old: "a\n", new: "x\ny\n" },
    ]);
    if (!outcome.ok) throw new Error("expected the edits to apply");
    expect(outcome.text).toBe("x\ny\nb\nC\n");
    expect(outcome.spans.map((span) => outcome.text.slice(span.start, span.end))).toEqual(["C", "x\ny\n"]);
  });
});

describe("line endings and indentation maps", () => {
  test("the file's line ending is the one most of its breaks use", () => {
    expect(lineEnding("a\r\nb\r\nc\n")).toBe("\r\n");
    expect(lineEnding("a\nb\nc\r\n")).toBe("\n");
    expect(lineEnding("no break")).toBe("\n");
    expect(withLineEndings("a\nb\r\n", "\r\n")).toBe("a\r\nb\r\n");
  });

  const maps: Array<[pairs: Array<[string, string]>, indent: string, expected: string | null]> = [
    [[["", "    "], ["  ", "      "]], "    ", "        "],
    [[["  ", "    "], ["    ", "        "]], "      ", "            "],
    [[["    ", "  "], ["        ", "    "]], "    ", "  "],
    [[["\t", "\t\t"]], "\t\t", "\t\t\t"],
    [[["  ", "\t"]], "", null],
    [[["", ""], ["  ", "\t\t\t\t"]], "", null], // a width ratio of 2 holds, but spaces are never counted as tabs
    [[["  ", "   "], ["    ", "      "]], "", null], // 2 → 3 and 4 → 6: three-space steps are not a unit glassbox reads
    [[["", "  "], ["  ", "   "]], "", null],
  ];
  for (const [pairs, indent, expected] of maps) {
    test(`${JSON.stringify(pairs)} maps ${JSON.stringify(indent)} to ${JSON.stringify(expected)}`, () => {
      const map = indentMap(pairs);
      if (expected === null) expect(map).toBeNull();
      else expect(map!.apply(indent)).toBe(expected);
    });
  }
});
