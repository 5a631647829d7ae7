import type { RE2JS } from "re2js";
import { Refusal } from "../../protocol/refusal.ts";

/** re2js is evaluated with the first search, not at every start: it costs ~26 ms, and most starts draw a screen long before any search. */
let engine: typeof RE2JS | null = null;
function linearEngine(): typeof RE2JS {
  return (engine ??= (require("re2js") as typeof import("re2js")).RE2JS);
}

/**
 * What search_text looks for, compiled for RE2JS: a linear-time engine, so no pattern a model
 * writes can backtrack without end (docs/decisions.md, "The tree tools").
 */
export interface LinePattern {
  /** The numbers (from 0) of the lines of `text` that hold a match, in order. */
  matchingLines(text: string): number[];
}

export interface PatternArgs {
  pattern?: string;
  text?: string;
  literal?: boolean;
  ignore_case?: boolean;
}

/** Compiles search_text's `pattern` (JavaScript syntax) or literal `text`; refuses what cannot run, naming the argument. */
export function compilePattern(args: PatternArgs): LinePattern {
  if (args.pattern !== undefined && args.text !== undefined) throw new Refusal("Give `pattern` or the older `text`, not both.");
  const literal = args.pattern === undefined || args.literal === true;
  const source = args.pattern ?? args.text;
  if (source === undefined) throw new Refusal("Give `pattern` (a regular expression, or text with `literal: true`).");
  const argument = args.pattern === undefined ? "text" : "pattern";
  const RE2JS = linearEngine();
  let translated: string;
  if (literal) translated = RE2JS.quote(source);
  else {
    try {
      new RegExp(source);
    } catch (error) {
      throw new Refusal(`Argument \`pattern\` is not a valid regular expression (${oneLine((error as Error).message)}); fix it, or send \`literal: true\` to search for the text as written.`);
    }
    translated = RE2JS.translateRegExp(source);
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(translated, RE2JS.MULTILINE | (args.ignore_case ? RE2JS.CASE_INSENSITIVE : 0));
  } catch (error) {
    throw new Refusal(
      `Argument \`${argument}\` uses something the linear-time search engine cannot run (${oneLine((error as Error).message)}): backreferences and lookahead or lookbehind are not supported, so rewrite the pattern without them.`,
    );
  }
  return { matchingLines: (text) => matchingLines(compiled, text) };
}

/**
 * One scan of the whole text finds where matches start; each line holding one is then tested on
 * its own, since a match in the whole text may run across a line's end and a line is what
 * matches. A line with no match start in the whole text has no match of its own (RE2's `^`,
 * `$` and `\b` see a line's ends alike in both), so no line is missed.
 */
function matchingLines(pattern: RE2JS, text: string): number[] {
  const lines: number[] = [];
  const matcher = pattern.matcher(text);
  let line = 0;
  let lineStart = 0;
  let from = 0;
  while (from <= text.length && matcher.find(from)) {
    const at = matcher.start();
    for (let newline = text.indexOf("\n", lineStart); newline !== -1 && newline < at; newline = text.indexOf("\n", lineStart)) {
      line++;
      lineStart = newline + 1;
    }
    // After a last newline there is no line: only an empty match could start there.
    if (lineStart === text.length && lineStart > 0) break;
    const end = text.indexOf("\n", lineStart);
    const lineEnd = end === -1 ? text.length : end;
    if (pattern.test(text.slice(lineStart, lineEnd))) lines.push(line);
    if (end === -1) break;
    line++;
    lineStart = from = end + 1;
  }
  return lines;
}

function oneLine(message: string): string {
  return message.replace(/\s+/g, " ").replace(/[.\s]+$/, "");
}
