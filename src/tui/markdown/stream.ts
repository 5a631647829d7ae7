/**
 * The model's reply rendered as Markdown while it streams, at the cost of its newest block only.
 *
 * Text arrives in pieces; `flush()` (once a frame, not once a token) hands back the lines that are
 * final (`commit`: never drawn differently again) and the lines of the block still growing
 * (`provisional`: drawn in place of the previous frame's). A block is final once marked's lexer
 * sees another block after it; fenced code is split out here, line by line, so an open fence
 * never waits for its end: its lines are final whenever the highlighter ends a line outside any open
 * comment or string (a "settled" point, from which highlighting starts afresh alike).
 *
 * What is not finished is drawn as it will likely end, never with its raw markers: an unfinished
 * line that may become a fence is held back, and an unclosed `code` or **bold** on the last line
 * is closed for the drawing.
 */
import type { Token } from "marked";
import { sanitize } from "../sanitize.ts";
import { highlight } from "./highlight.ts";
import { fenceLanguage, indentCode, lexMarkdown, renderBlocks } from "./render.ts";
import type { StyledLine } from "./style.ts";

/** CommonMark's fence: up to 3 spaces, then 3+ backticks (an info string without any) or tildes. */
const FENCE_OPEN = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})(.*)$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})\s*$/;
/** An unfinished line that may still turn into a fence. */
const MAYBE_FENCE = /^ {0,3}(`{1,2}$|`{3,}[^`]*$|~{1,})/;

/** How long a growing paragraph or list gets before its older lines are made final (cutLongBlock). */
const LONG_BLOCK_LINES = 4;
/** Lines a cut leaves growing. */
const KEPT_GROWING_LINES = 2;
const LIST_ITEM = /^ {0,3}([*+-]|\d{1,9}[.)])( |$)/;

interface Fence {
  marker: string;
  language: string | null;
}

export interface Flushed {
  commit: StyledLine[];
  provisional: StyledLine[];
}

export class MarkdownStream {
  /** Text received since the last flush. */
  private carry = "";
  /** The last line, not ended yet. */
  private partial = "";
  /** Whole lines of prose not final yet, each with its newline. */
  private prose = "";
  private fence: Fence | null = null;
  /** Whole lines of the open fence since its last settled point. */
  private code: string[] = [];
  /** Whether a line with text came yet. */
  private started = false;

  get dirty(): boolean {
    return this.carry !== "";
  }

  append(text: string): void {
    this.carry += sanitize(text);
  }

  flush(): Flushed {
    const commit: StyledLine[] = [];
    const lines = (this.partial + this.carry).split("\n");
    this.carry = "";
    this.partial = lines.pop()!;
    for (const line of lines) this.takeLine(line, commit);
    return { commit, provisional: this.fence ? this.growingCode(commit) : this.growingProse(commit) };
  }

  /** The reply ended: everything is final, an unclosed fence or marker as it stands. */
  end(): StyledLine[] {
    const { commit } = this.flush();
    if (this.fence) {
      const code = this.partial && !FENCE_CLOSE.test(this.partial) ? [...this.code, this.partial] : this.code;
      if (code.length) commit.push(...codeLines(code, this.fence));
    } else if (this.prose || this.partial) {
      commit.push(...renderBlocks(lexMarkdown(this.prose + this.partial)));
    }
    // Blank lines the reply ended with would only push the next line down.
    while (commit.at(-1)?.text === "") commit.pop();
    this.partial = this.prose = "";
    this.code = [];
    this.fence = null;
    return commit;
  }

  private takeLine(line: string, commit: StyledLine[]): void {
    if (this.fence) {
      const close = FENCE_CLOSE.exec(line);
      if (close && close[1]![0] === this.fence.marker[0] && close[1]!.length >= this.fence.marker.length) {
        if (this.code.length) commit.push(...codeLines(this.code, this.fence));
        this.code = [];
        this.fence = null;
      } else {
        this.code.push(line);
      }
      return;
    }
    // Blank lines before the reply says anything are not drawn.
    if (!this.started && !line.trim()) return;
    this.started = true;
    const open = FENCE_OPEN.exec(line);
    if (!open) {
      this.prose += line + "\n";
      return;
    }
    // A fence ends the prose before it: that is final.
    if (this.prose) commit.push(...renderBlocks(lexMarkdown(this.prose)));
    this.prose = "";
    this.fence = { marker: open[1]!, language: fenceLanguage(open[2]!) };
  }

  /** Commits the open fence's lines up to its last settled point; the rest is drawn provisionally. */
  private growingCode(commit: StyledLine[]): StyledLine[] {
    const fence = this.fence!;
    if (this.code.length) {
      const done = highlight(this.code.join("\n"), fence.language);
      if (done.settled) {
        commit.push(...indentCode(done.lines));
        this.code = [];
      }
    }
    // An unfinished line that may be the closing fence is held back.
    const tail = this.partial && !MAYBE_FENCE.test(this.partial) ? [...this.code, this.partial] : this.code;
    return tail.length ? codeLines(tail, fence) : [];
  }

  /** Commits every prose block but the last; draws the last as it will likely end. */
  private growingProse(commit: StyledLine[]): StyledLine[] {
    const shown = MAYBE_FENCE.test(this.partial) ? "" : closeMarkers(this.partial);
    if (!this.prose && !shown) return [];
    const tokens = lexMarkdown(this.prose + shown);
    let last = tokens.length - 1;
    while (last > 0 && tokens[last]!.type === "space") last--;
    const final = tokens.slice(0, last);
    const finalLength = final.reduce((sum, token) => sum + token.raw.length, 0);
    // Only blocks made of whole lines, and only when the lexer's pieces add up to the text.
    const whole = final.length > 0 && finalLength <= this.prose.length && this.prose.startsWith(final.map(rawOf).join(""));
    if (whole) {
      commit.push(...renderBlocks(final));
      this.prose = this.prose.slice(finalLength);
    }
    if (this.cutLongBlock(tokens[last]!, commit)) return this.growingProse(commit);
    return renderBlocks(whole ? tokens.slice(last) : tokens);
  }

  /**
   * A paragraph or a list still growing (a reply with no blank line in it) would be lexed whole
   * every frame: past LONG_BLOCK_LINES its older lines become final, cut where the rest can start
   * afresh (any line of a paragraph, an item of a list). Markup spanning the cut is drawn as two
   * halves, a price paid only in such long blocks.
   */
  private cutLongBlock(block: Token, commit: StyledLine[]): boolean {
    if (block.type !== "paragraph" && block.type !== "list") return false;
    const lines = this.prose.split("\n").slice(0, -1); // prose is whole lines, each with its newline
    if (lines.length <= LONG_BLOCK_LINES) return false;
    let cut = lines.length - KEPT_GROWING_LINES;
    if (block.type === "list") while (cut > 0 && !LIST_ITEM.test(lines[cut]!)) cut--;
    if (cut <= 0) return false;
    const head = lines.slice(0, cut).join("\n") + "\n";
    commit.push(...renderBlocks(lexMarkdown(head)));
    this.prose = this.prose.slice(head.length);
    return true;
  }
}

function rawOf(token: Token): string {
  return token.raw;
}

function codeLines(code: string[], fence: Fence): StyledLine[] {
  return indentCode(highlight(code.join("\n"), fence.language).lines);
}

/**
 * The unfinished last line as it will likely end: a marker just begun (`**`, a backtick, a
 * link's brackets) is held back, and an odd backtick, `**` or `*` (outside code; a `*` with spaces on both sides is
 * arithmetic, not a marker) gets its closer, so half-streamed `code` and **bold** are drawn
 * styled rather than with their markers.
 */
export function closeMarkers(line: string): string {
  // A link being written shows its text only until its address is complete.
  const open = line.replace(/[*`]+$/, "").replace(/\[([^[\]]*)(\](\([^)]*)?)?$/, "$1").trimEnd();
  if (count(open, /`/g) % 2 === 1) return open + "`";
  const body = open.replace(/`[^`]*`/g, "").replace(/^\s*[*+-]\s/, "");
  const strong = [...body.matchAll(/\*\*(?=\S)|(?<=\S)\*\*/g)];
  const single = [...body.replace(/\*\*/g, "  ").matchAll(/\*(?=\S)|(?<=\S)\*/g)];
  const closers: Array<[at: number, closer: string]> = [];
  if (strong.length % 2 === 1) closers.push([strong.at(-1)!.index, "**"]);
  if (single.length % 2 === 1) closers.push([single.at(-1)!.index, "*"]);
  // The marker opened last closes first.
  return open + closers.sort((a, b) => b[0] - a[0]).map(([, closer]) => closer).join("");
}

function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}
