/**
 * Fenced code coloured by language, with speed-highlight: each grammar is a short list of regular
 * expressions, and a token costs one native match. highlight.js was used first and measured out:
 * streaming half-fenced Markdown it cost bench:tui 6–7 points of a core (the JIT compiling its
 * large grammar engine, and its garbage), where the whole target is 12 (docs/decisions.md,
 * "Markdown in the transcript").
 */
import { tokenizeWith, type ShjLanguageData, type ShjToken } from "@speed-highlight/core/tokenize";
import asm from "@speed-highlight/core/languages/asm.js";
import bash from "@speed-highlight/core/languages/bash.js";
import c from "@speed-highlight/core/languages/c.js";
import css from "@speed-highlight/core/languages/css.js";
import diff from "@speed-highlight/core/languages/diff.js";
import docker from "@speed-highlight/core/languages/docker.js";
import go from "@speed-highlight/core/languages/go.js";
import html from "@speed-highlight/core/languages/html.js";
import ini from "@speed-highlight/core/languages/ini.js";
import java from "@speed-highlight/core/languages/java.js";
import js from "@speed-highlight/core/languages/js.js";
import jsdoc from "@speed-highlight/core/languages/jsdoc.js";
import json from "@speed-highlight/core/languages/json.js";
import lua from "@speed-highlight/core/languages/lua.js";
import make from "@speed-highlight/core/languages/make.js";
import py from "@speed-highlight/core/languages/py.js";
import regex from "@speed-highlight/core/languages/regex.js";
import rs from "@speed-highlight/core/languages/rs.js";
import sql from "@speed-highlight/core/languages/sql.js";
import todo from "@speed-highlight/core/languages/todo.js";
import toml from "@speed-highlight/core/languages/toml.js";
import ts from "@speed-highlight/core/languages/ts.js";
import xml from "@speed-highlight/core/languages/xml.js";
import yaml from "@speed-highlight/core/languages/yaml.js";
import { LineBuilder, withColor, type Color, type StyledLine } from "./style.ts";
import { belowTopTier } from "../../platform/jit.ts";

/** Every grammar, by speed-highlight's name; grammars name the ones they embed (a comment's TODO, a template's `${}`). */
const GRAMMARS: Record<string, ShjLanguageData> = { asm, bash, c, css, diff, docker, go, html, ini, java, js, jsdoc, json, lua, make, py, regex, rs, sql, todo, toml, ts, xml, yaml };
/** Grammars that only ever run inside another one: not a fence's language. */
const EMBEDDED = new Set(["jsdoc", "regex", "todo"]);
/** What fences are commonly tagged with, for speed-highlight's short names. */
const ALIASES: Record<string, string> = {
  typescript: "ts",
  tsx: "ts",
  mts: "ts",
  cts: "ts",
  javascript: "js",
  jsx: "js",
  mjs: "js",
  cjs: "js",
  python: "py",
  python3: "py",
  rust: "rs",
  golang: "go",
  sh: "bash",
  shell: "bash",
  zsh: "bash",
  patch: "diff",
  dockerfile: "docker",
  makefile: "make",
  yml: "yaml",
  svg: "xml",
  cpp: "c",
  "c++": "c",
  h: "c",
  jsonc: "json",
};

/** speed-highlight's token types → a colour; types not named (operators) keep the code's own look. */
const TYPE_COLOR: Partial<Record<ShjToken, Color>> = {
  kwd: "magenta",
  str: "green",
  cmnt: "gray",
  num: "yellow",
  bool: "yellow",
  var: "cyan",
  type: "cyan",
  class: "cyan",
  func: "blue",
  section: "cyan",
  insert: "green",
  deleted: "red",
  err: "red",
};

/**
 * Appended to the code while it is tokenized, never drawn: a construct still open at the end (a
 * block comment, a template string) swallows both newlines, where a line comment takes one.
 */
const SETTLE_PROBE = "\n\n";

/** The grammar speed-highlight has for `name` (or an alias: typescript, python, sh …), or null. */
export function knownLanguage(name: string): string | null {
  const key = name.toLowerCase();
  const id = ALIASES[key] ?? key;
  return Object.hasOwn(GRAMMARS, id) && !EMBEDDED.has(id) ? id : null;
}

export interface Highlighted {
  lines: StyledLine[];
  /** Whether the code ends outside every open construct (a comment, a string): highlighting may start afresh after it. */
  settled: boolean;
}

/** Colours `code` (sanitized, no trailing newline) in `language`: one styled line per line of code. */
export function highlight(code: string, language: string | null): Highlighted {
  if (!language) {
    const out = new LineBuilder();
    out.add(code);
    out.break();
    return { lines: out.lines, settled: true };
  }
  const painter = new TokenPainter(code.length);
  tokenizeWith(code + SETTLE_PROBE, GRAMMARS[language]!, painter.take.bind(painter), { languages: GRAMMARS });
  painter.out.break();
  return { lines: painter.out.lines, settled: painter.lastType === undefined };
}

/** Takes speed-highlight's tokens as lines in their colours, up to the code's end (not the probe after it). */
class TokenPainter {
  readonly out = new LineBuilder();
  /** The type of the last token, the probe's included: undefined when the probe ended outside every construct. */
  lastType: string | undefined;

  constructor(private unshown: number) {}

  take(text: string, type?: ShjToken): void {
    if (!text) return;
    this.lastType = type;
    if (this.unshown <= 0) return;
    const color = type && TYPE_COLOR[type];
    this.out.add(text.length > this.unshown ? text.slice(0, this.unshown) : text, color ? withColor(0, color) : 0);
    this.unshown -= text.length;
  }
}

// Per token of fenced code while it streams (belowTopTier says why).
belowTopTier(TokenPainter.prototype.take);
