/**
 * The one place glassbox gets blessed from.
 *
 * blessed 0.1.81 was written for Node with its sources on disk. Inside a `bun build --compile`
 * binary four things break; this module and terminfo.ts fix each one at load time, without
 * editing node_modules:
 *
 * 1. Widgets: the package entry (lib/blessed.js → lib/widget.js) loads every widget by a
 *    computed name, `require('./widgets/' + file)`, which the binary cannot resolve. We never
 *    load the entry; we require the file of each widget we use by a literal path.
 * 2. lib/unicode.js measures a tab with a lazy `require('../')` (the package entry again). It
 *    only reads `exports.blessed.screen.global`, so we hand it the screen constructor first.
 * 3 and 4: the terminfo entries blessed cannot read in a binary, or misparses (terminfo.ts).
 *
 * The screen and its signals are in screen.ts, the cell writer in cell-writer.ts.
 */
import type { Widgets } from "blessed";
import { belowTopTier } from "../platform/jit.ts";
// 3 and 4: blessed's Tput reads its terminfo through terminfo.ts before any screen is made.
import "./terminfo.ts";

export type { Widgets };

/* Literal requires only: see 1. above. (These files have no types of their own.) */
const Screen = require("blessed/lib/widgets/screen");
const Element = require("blessed/lib/widgets/element");
const Box = require("blessed/lib/widgets/box");
const Text = require("blessed/lib/widgets/text");
const ScrollableBox = require("blessed/lib/widgets/scrollablebox");
const ScrollableText = require("blessed/lib/widgets/scrollabletext");
const List = require("blessed/lib/widgets/list");
const Log = require("blessed/lib/widgets/log");
const Textarea = require("blessed/lib/widgets/textarea");
const Textbox = require("blessed/lib/widgets/textbox");
const unicode = require("blessed/lib/unicode");

/** blessed's character tables, for the cell writer. */
export { unicode };

/* 2. unicode.charWidth('\t') reads `exports.blessed.screen.global` (a static on Screen). */
unicode.blessed = { screen: Screen };

/*
 * blessed measures every cell it draws (unicode.charWidth) and reads every character of a widget's
 * content (unicode.codePointAt) through general helpers: a tenth of a frame's time while text
 * pours in. Printable ASCII, nearly every cell, is answered first; everything else as before.
 */
const charWidth: (str: string | number, i?: number) => number = unicode.charWidth;
function asciiFirstWidth(str: string | number, i?: number): number {
  if (typeof str === "string" && !i && plainAscii(str)) return 1;
  return charWidth(str, i);
}
const codePointAt: (str: string, position?: number) => number | undefined = unicode.codePointAt;
function stringFirstCodePoint(str: string, position?: number): number | undefined {
  return typeof str === "string" ? str.codePointAt(position || 0) : codePointAt(str, position);
}
unicode.charWidth = asciiFirstWidth;
unicode.codePointAt = stringFirstCodePoint;
belowTopTier(asciiFirstWidth, stringFirstCodePoint);

/** A printable ASCII character: one cell, nothing to look up. */
export function plainAscii(ch: string): boolean {
  return ch.length === 1 && ch >= " " && ch <= "~";
}

/* ---------- typed constructors ---------- */

type Make<O, W> = (options?: O) => W;

/** Tags off unless asked for: model text must never be read as blessed markup. */
function untagged<O extends { tags?: boolean }, W>(widget: unknown): Make<O, W> {
  const make = widget as (options: O) => W;
  return (options?: O) => make({ tags: false, ...options } as O);
}

export const blessed = {
  screen: Screen as Make<Widgets.IScreenOptions, Widgets.Screen>,
  element: untagged<Widgets.ElementOptions, Widgets.BlessedElement>(Element),
  box: untagged<Widgets.BoxOptions, Widgets.BoxElement>(Box),
  text: untagged<Widgets.TextOptions, Widgets.TextElement>(Text),
  scrollablebox: untagged<Widgets.ScrollableBoxOptions, Widgets.ScrollableBoxElement>(ScrollableBox),
  scrollabletext: untagged<Widgets.ScrollableTextOptions, Widgets.ScrollableTextElement>(ScrollableText),
  list: untagged<Widgets.ListOptions<Widgets.ListElementStyle>, Widgets.ListElement>(List),
  log: untagged<Widgets.LogOptions, Widgets.Log>(Log),
  textarea: untagged<Widgets.TextareaOptions, Widgets.TextareaElement>(Textarea),
  textbox: untagged<Widgets.TextboxOptions, Widgets.TextboxElement>(Textbox),
};
