/**
 * edit_file's matching, as pure functions: text in, edited text (or the reason it cannot be
 * edited) out. `old` is looked for exactly first; when it does not occur, a loose match over
 * whole lines is tried (line endings, trailing whitespace, a uniform difference in
 * indentation, tabs never read as spaces) and taken only when it is the one place that fits.
 */

export type LineEnding = "\n" | "\r\n";

/** CRLF when most line breaks are CRLF; text without line breaks counts as LF. */
export function lineEnding(text: string): LineEnding {
  const crlf = text.split("\r\n").length - 1;
  const lf = text.split("\n").length - 1 - crlf;
  return crlf > lf ? "\r\n" : "\n";
}

/** Gives text a file's line endings: in a CRLF file every line break becomes CRLF; text for an LF file is left as written. */
export function withLineEndings(text: string, eol: LineEnding): string {
  return eol === "\r\n" ? text.replace(/\r?\n/g, "\r\n") : text;
}

export interface EditRequest {
  old: string;
  new: string;
  replace_all?: boolean;
}

/** A stretch of the edited text that an edit wrote: [start, end) in the final text. */
export interface Span {
  start: number;
  end: number;
}

export type EditOutcome =
  | { ok: true; text: string; spans: Span[]; /** null: `old` occurred exactly. */ loose: string | null }
  | { ok: false; problem: EditProblem };

/** Why an edit cannot be made, in pieces of the sentence "Argument `old` WHAT in FILE DETAIL; ADVICE." */
export interface EditProblem {
  what: string;
  /** Said after the file's name, with its own leading punctuation; may be empty. */
  detail: string;
  advice: string;
}

/**
 * Applies one edit; `new` takes the file's line endings (and, for a loose match, its indentation).
 * `loose` false (`components.loose_edits` off): exact matches only.
 */
export function applyEdit(text: string, edit: EditRequest, loose = true): EditOutcome {
  const eol = lineEnding(text);
  const replacement = withLineEndings(edit.new, eol);
  const count = occurrences(text, edit.old);
  if (edit.replace_all) {
    if (count === 0) return { ok: false, problem: { what: "does not occur exactly", detail: "", advice: "`replace_all` takes only exact text, so read the file and copy the text exactly" } };
    const spans: Span[] = [];
    let out = "";
    let from = 0;
    for (let at = text.indexOf(edit.old); at !== -1; at = text.indexOf(edit.old, at + edit.old.length)) {
      out += text.slice(from, at);
      spans.push({ start: out.length, end: out.length + replacement.length });
      out += replacement;
      from = at + edit.old.length;
    }
    return { ok: true, text: out + text.slice(from), spans, loose: null };
  }
  if (count > 1) return { ok: false, problem: { what: `occurs ${count} times`, detail: "", advice: "include more surrounding lines so it occurs exactly once, or pass replace_all: true" } };
  if (count === 1) {
    const at = text.indexOf(edit.old);
    return { ok: true, text: text.slice(0, at) + replacement + text.slice(at + edit.old.length), spans: [{ start: at, end: at + replacement.length }], loose: null };
  }
  if (!loose) return { ok: false, problem: { what: "does not occur exactly", detail: "", advice: "read the file and copy the text exactly, whitespace and line endings included" } };
  return looseEdit(text, edit.old, edit.new, eol);
}

/** Applies edits in order, each to the result of the one before; the first that fails fails them all. */
export function applyEdits(text: string, edits: EditRequest[], looseMatching = true): { ok: true; text: string; spans: Span[]; loose: Array<string | null> } | { ok: false; index: number; problem: EditProblem } {
  let spans: Span[] = [];
  const loose: Array<string | null> = [];
  for (const [index, edit] of edits.entries()) {
    const outcome = applyEdit(text, edit, looseMatching);
    if (!outcome.ok) return { ok: false, index, problem: outcome.problem };
    spans = [...shiftSpans(spans, text, outcome.text), ...outcome.spans];
    text = outcome.text;
    loose.push(outcome.loose);
  }
  return { ok: true, text, spans, loose };
}

/** Moves the spans of earlier edits to where they are after a later one turned `before` into `after`. */
function shiftSpans(spans: Span[], before: string, after: string): Span[] {
  // The text the later edit left alone at both ends is common to before and after.
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const delta = after.length - before.length;
  const changedEnd = before.length - tail;
  const move = (at: number) => (at <= head ? at : at >= changedEnd ? at + delta : Math.min(at, after.length - tail));
  return spans.map((span) => ({ start: move(span.start), end: Math.max(move(span.start), move(span.end)) }));
}

function occurrences(text: string, piece: string): number {
  return text.split(piece).length - 1;
}

interface Line {
  start: number;
  /** Where the line's text ends (its break not included). */
  end: number;
  /** Its break: "\r\n", "\n" or "" for a last line without one. */
  terminator: string;
}

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (;;) {
    const at = text.indexOf("\n", start);
    if (at === -1) {
      lines.push({ start, end: text.length, terminator: "" });
      return lines;
    }
    const cr = at > start && text[at - 1] === "\r";
    lines.push({ start, end: cr ? at - 1 : at, terminator: cr ? "\r\n" : "\n" });
    start = at + 1;
  }
}

const INDENT = /^[ \t]*/;

/** How old's indentation becomes the file's. */
export interface IndentMap {
  /** For the result: empty when old's indentation is the file's. */
  description: string;
  apply(indent: string): string;
}

const SAME: IndentMap = { description: "", apply: (indent) => indent };

/** Ratios of indentation units a re-typed block may have used against the file's (2 spaces for 4, 4 for 2, …). */
const UNITS = [2, 4, 8];

/**
 * The one way old's indentation maps to the file's over matched lines, or null: the same
 * whitespace added to (or taken from) the front of every line; or, for space indentation only,
 * a different unit applied to every level (a block typed with 2 spaces where the file has 4).
 * Tabs are never read as spaces.
 */
export function indentMap(pairs: Array<[old: string, file: string]>): IndentMap | null {
  if (pairs.every(([old, file]) => old === file)) return SAME;
  const [firstOld, firstFile] = pairs[0]!;
  if (firstFile.endsWith(firstOld)) {
    const added = firstFile.slice(0, firstFile.length - firstOld.length);
    if (pairs.every(([old, file]) => file === added + old)) return { description: `indentation shifted by ${shown(added)}`, apply: (indent) => added + indent };
  }
  if (firstOld.endsWith(firstFile)) {
    const removed = firstOld.slice(0, firstOld.length - firstFile.length);
    if (pairs.every(([old, file]) => old === removed + file)) {
      return { description: `indentation shifted back by ${shown(removed)}`, apply: (indent) => indent.slice(commonPrefix(indent, removed)) };
    }
  }
  return unitMap(pairs);
}

function unitMap(pairs: Array<[old: string, file: string]>): IndentMap | null {
  if (!pairs.every(([old, file]) => /^ *$/.test(old) && /^ *$/.test(file))) return null;
  const widths = pairs.map(([old, file]) => [old.length, file.length] as const);
  const other = widths.find(([old]) => old !== widths[0]![0]);
  if (!other) return null;
  const [o1, f1] = widths[0]!;
  const [o2, f2] = other;
  const scale = (f2 - f1) / (o2 - o1);
  const ratio = UNITS.flatMap((oldUnit) => UNITS.map((fileUnit) => [oldUnit, fileUnit] as const)).find(([oldUnit, fileUnit]) => oldUnit !== fileUnit && fileUnit / oldUnit === scale);
  if (!ratio) return null;
  const base = Math.round(f1 - scale * o1);
  // Whole levels to whole levels: old's widths are steps of its unit, the shift is steps of the file's.
  if (base % ratio[1] !== 0 || !widths.every(([old, file]) => old % ratio[0] === 0 && file === scale * old + base)) return null;
  const shift = base ? `, shifted by ${shown(" ".repeat(Math.abs(base)))}${base < 0 ? " back" : ""}` : "";
  return {
    description: `indentation of ${ratio[0]} spaces read as ${ratio[1]}${shift}`,
    apply: (indent) => (/^ *$/.test(indent) ? " ".repeat(Math.max(0, Math.round(scale * indent.length + base))) : indent),
  };
}

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

function shown(whitespace: string): string {
  const tabs = whitespace.split("\t").length - 1;
  const spaces = whitespace.length - tabs;
  return [spaces ? `${spaces} space${spaces > 1 ? "s" : ""}` : "", tabs ? `${tabs} tab${tabs > 1 ? "s" : ""}` : ""].filter(Boolean).join(" and ");
}

/** Where `old`'s lines fit the file's whole lines loosely, and how. */
interface LooseFit {
  first: number;
  map: IndentMap;
}

function looseEdit(text: string, old: string, replacement: string, eol: LineEnding): EditOutcome {
  const endsWithBreak = /\r?\n$/.test(old);
  const oldLines = (endsWithBreak ? old.replace(/\r?\n$/, "") : old).split(/\r?\n/);
  const notFound = {
    ok: false as const,
    problem: { what: "does not occur", detail: " (not even with line endings, trailing whitespace or indentation set aside)", advice: "read the file and copy the text exactly" },
  };
  if (oldLines.every((line) => line.trim() === "")) return notFound;
  const lines = linesOf(text);
  const fileTexts = lines.map((line) => text.slice(line.start, line.end));
  const fits: LooseFit[] = [];
  for (let first = 0; first + oldLines.length <= lines.length; first++) {
    const map = fitAt(fileTexts, first, oldLines);
    if (map) fits.push({ first, map });
  }
  if (fits.length === 0) return notFound;
  if (fits.length > 1) {
    const where = `lines ${fits.slice(0, 5).map((fit) => fit.first + 1).join(", ")}${fits.length > 5 ? ", …" : ""}`;
    return { ok: false, problem: { what: "does not occur exactly", detail: `, and with whitespace set aside it fits ${fits.length} places (${where})`, advice: "copy the text exactly, with more surrounding lines" } };
  }
  const { first, map } = fits[0]!;
  const last = lines[first + oldLines.length - 1]!;
  const start = lines[first]!.start;
  const end = endsWithBreak ? last.end + last.terminator.length : last.end;
  const written = withLineEndings(
    replacement
      .split(/\r?\n/)
      .map((line) => (line.trim() === "" ? line : map.apply(INDENT.exec(line)![0]) + line.replace(INDENT, "")))
      .join("\n"),
    eol,
  );
  const region = lines.slice(first, first + oldLines.length);
  const ignored = [
    oldBreaks(old).some((terminator, index) => index < region.length && region[index]!.terminator !== "" && region[index]!.terminator !== terminator) ? "line endings differ" : "",
    region.some((line, index) => trailing(text.slice(line.start, line.end)) !== trailing(oldLines[index]!)) ? "trailing whitespace differs" : "",
    map.description,
  ].filter(Boolean);
  return {
    ok: true,
    text: text.slice(0, start) + written + text.slice(end),
    spans: [{ start, end: start + written.length }],
    loose: `matched loosely: ${ignored.join("; ") || "whitespace differs"}`,
  };
}

function oldBreaks(old: string): string[] {
  return [...old.matchAll(/\r?\n/g)].map((match) => match[0]);
}

function trailing(line: string): string {
  return /[ \t]*$/.exec(line)![0];
}

/** Whether old's lines fit the file's lines from `first` on, and with which indentation map. */
function fitAt(fileTexts: string[], first: number, oldLines: string[]): IndentMap | null {
  const pairs: Array<[string, string]> = [];
  for (const [offset, oldLine] of oldLines.entries()) {
    const oldText = oldLine.trimEnd();
    const fileText = fileTexts[first + offset]!.trimEnd();
    if (oldText === "" || fileText === "") {
      if (oldText !== fileText) return null;
      continue;
    }
    const oldIndent = INDENT.exec(oldText)![0];
    const fileIndent = INDENT.exec(fileText)![0];
    if (oldText.slice(oldIndent.length) !== fileText.slice(fileIndent.length)) return null;
    pairs.push([oldIndent, fileIndent]);
  }
  return indentMap(pairs);
}
