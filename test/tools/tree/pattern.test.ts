import { describe, expect, test } from "bun:test";
import { compilePattern } from "../../../src/tools/tree/pattern.ts";
import { Refusal } from "../../../src/protocol/refusal.ts";

/** The lines a line-by-line search with JavaScript's own engine finds: what matchingLines must equal. */
function nativeLines(pattern: string, text: string, flags = ""): number[] {
  const regex = new RegExp(pattern, flags);
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines.flatMap((line, index) => (regex.test(line) ? [index] : []));
}

const TEXTS = [
  "alpha beta\ngamma\n\ndelta alpha\n",
  "no newline at the end alpha",
  "a\nb\r\nc\r\n\n\nalpha\nALPHA\n  beta  ",
  "x = 1;\nfoo(bar)\n  foo (bar)\n// foo(\nbar)\nfunction foo() {}\n",
  "",
  "\n\n\n",
  "aaaa\naaab\nbaaa\nab\n",
];

const PATTERNS = ["alpha", "^alpha", "alpha$", "^$", "\\bfoo\\(", "foo\\s*\\(bar\\)", "a\\s+b", "(?:a|b)+$", "[^a]", "^\\s*$", "\\d", "x*", "foo\\(\\s*\\n?bar", "a.b", "(?<name>a)b"];

describe("the lines a pattern matches are those a line-by-line search finds", () => {
  for (const pattern of PATTERNS) {
    test(pattern, () => {
      const compiled = compilePattern({ pattern });
      for (const text of TEXTS) expect(compiled.matchingLines(text)).toEqual(nativeLines(pattern, text));
    });
  }

  test("ignore_case", () => {
    const compiled = compilePattern({ pattern: "alpha", ignore_case: true });
    for (const text of TEXTS) expect(compiled.matchingLines(text)).toEqual(nativeLines("alpha", text, "i"));
  });

  test("literal text, from `text` or from `pattern` with literal: true, has no special characters", () => {
    const text = "a.b\naxb\n(x)*\nx\n";
    expect(compilePattern({ text: "a.b" }).matchingLines(text)).toEqual([0]);
    expect(compilePattern({ pattern: "a.b", literal: true }).matchingLines(text)).toEqual([0]);
    expect(compilePattern({ pattern: "a.b" }).matchingLines(text)).toEqual([0, 1]);
    expect(compilePattern({ pattern: "(x)*", literal: true }).matchingLines(text)).toEqual([2]);
  });
});

function refusal(args: Parameters<typeof compilePattern>[0]): string {
  try {
    compilePattern(args);
  } catch (error) {
    expect(error).toBeInstanceOf(Refusal);
    return (error as Error).message;
  }
  throw new Error("not refused");
}

describe("what is refused, in one sentence naming the argument", () => {
  test("a broken regular expression", () => {
    const message = refusal({ pattern: "foo(" });
    expect(message).toContain("`pattern`");
    expect(message).toContain("not a valid regular expression");
    expect(message).toContain("literal: true");
  });

  const unsupported: Array<[string, string]> = [
    ["a backreference", "(a)\\1"],
    ["a lookahead", "foo(?=bar)"],
    ["a negative lookahead", "foo(?!bar)"],
    ["a lookbehind", "(?<=foo)bar"],
  ];
  for (const [label, pattern] of unsupported) {
    test(`${label}, which a linear-time engine cannot run`, () => {
      const message = refusal({ pattern });
      expect(message).toContain("`pattern`");
      expect(message).toContain("linear-time");
      expect(message).not.toContain("\n");
      expect(message).toMatch(/\.$/);
    });
  }

  test("pattern and text together", () => {
    expect(refusal({ pattern: "a", text: "a" })).toContain("not both");
  });
});
