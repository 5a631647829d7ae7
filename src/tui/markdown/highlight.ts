/**
 * Fenced code coloured by language. highlight.js's core with a handful of common languages only
 * (each grammar is code in the binary; `highlight.js` whole registers about 190).
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import typescript from "highlight.js/lib/languages/typescript";
import { LineBuilder, withColor, type Color, type StyledLine } from "./style.ts";

const GRAMMARS = { bash, diff, go, javascript, json, python, rust, typescript };
let registered = false;

/** highlight.js scopes (their first part) → a colour; scopes not named keep the code's own look. */
const SCOPE_COLOR: Record<string, Color> = {
  keyword: "magenta",
  built_in: "cyan",
  type: "cyan",
  class: "cyan",
  literal: "yellow",
  number: "yellow",
  symbol: "yellow",
  string: "green",
  regexp: "green",
  char: "green",
  comment: "gray",
  doctag: "gray",
  meta: "gray",
  "title.function": "blue",
  "title.class": "cyan",
  title: "blue",
  attr: "cyan",
  property: "cyan",
  addition: "green",
  deletion: "red",
  section: "cyan",
  variable: "yellow",
} as Record<string, Color>;

/**
 * highlight.js's emitter, replaced (its `__emitter` option): the pieces of code with their style,
 * instead of a tree of scopes turned into escaped HTML on every call, which is work thrown away
 * here (a third of a highlight's time in a profile of bench:tui's stream).
 */
class StyledEmitter {
  readonly pieces: Array<[text: string, style: number]> = [];
  private styles = [0];

  addText(text: string): void {
    if (text) this.pieces.push([text, this.styles.at(-1)!]);
  }

  startScope(scope: string): void {
    const style = this.styles.at(-1)!;
    const color = SCOPE_COLOR[scope] ?? SCOPE_COLOR[scope.split(".")[0]!];
    this.styles.push(color ? withColor(style, color) : style);
  }

  endScope(): void {
    if (this.styles.length > 1) this.styles.pop();
  }

  openNode(scope: string): void {
    this.startScope(scope);
  }

  closeNode(): void {
    this.endScope();
  }

  /** Code in another language inside this one (a sub-grammar highlight.js ran): its pieces as they are. */
  __addSublanguage(emitter: StyledEmitter): void {
    this.pieces.push(...emitter.pieces);
  }

  finalize(): void {}

  toHTML(): string {
    return "";
  }
}

/** The language highlight.js knows under `name` (or an alias: ts, py, sh …), or null. */
export function knownLanguage(name: string): string | null {
  // Registering runs each grammar's definition: done when the first fence asks, not at start.
  if (!registered) {
    hljs.configure({ __emitter: StyledEmitter });
    for (const [grammarName, grammar] of Object.entries(GRAMMARS)) hljs.registerLanguage(grammarName, grammar);
    registered = true;
  }
  return name && hljs.getLanguage(name) ? name : null;
}

export interface Highlighted {
  lines: StyledLine[];
  /** Whether the code ends outside every open construct (a comment, a string): highlighting may start afresh after it. */
  settled: boolean;
}

/** Colours `code` (sanitized, no trailing newline) in `language`: one styled line per line of code. */
export function highlight(code: string, language: string | null): Highlighted {
  const out = new LineBuilder();
  if (!language) {
    out.add(code);
    out.break();
    return { lines: out.lines, settled: true };
  }
  const result = hljs.highlight(code, { language, ignoreIllegals: true }) as unknown as { _emitter: StyledEmitter; _top?: { parent?: unknown } };
  for (const [text, style] of result._emitter.pieces) out.add(text, style);
  out.break();
  return { lines: out.lines, settled: !result._top?.parent };
}
