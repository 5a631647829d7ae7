import { belowTopTier } from "../../platform/jit.ts";

/**
 * Styles of rendered Markdown, one character code per character of text, so a line's styles are
 * sliced, wrapped and joined exactly like its text. A code packs bold and underline (terminals
 * through blessed have no italics: underline stands for them, as in man pages) and a colour.
 * Code 0 is the voice's own look.
 */
export const BOLD = 1;
export const UNDERLINE = 2;
const COLOR_SHIFT = 2;
export const COLORS = ["", "cyan", "green", "yellow", "magenta", "blue", "red", "gray"] as const;
/** How many style codes there are (every code is below this). */
export const STYLE_CODES = COLORS.length << COLOR_SHIFT;
export type Color = Exclude<(typeof COLORS)[number], "">;

export function withColor(style: number, color: Color): number {
  return (style & (BOLD | UNDERLINE)) | (COLORS.indexOf(color) << COLOR_SHIFT);
}

/** The blessed tags that open a style (the transcript pane turns them into a cell attribute once). */
export function styleTags(style: number): string {
  const color = COLORS[style >> COLOR_SHIFT];
  return `${style & BOLD ? "{bold}" : ""}${style & UNDERLINE ? "{underline}" : ""}${color ? `{${color}-fg}` : ""}`;
}

/** One line of rendered Markdown: its text (sanitized, no markers) and a style code per character. */
export interface StyledLine {
  text: string;
  styles: string;
}

/** Builds styled lines from pieces; a newline in a piece starts a new line. */
export class LineBuilder {
  readonly lines: StyledLine[] = [];
  private text = "";
  private styles = "";

  add(text: string, style = 0): void {
    let start = 0;
    for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
      this.addPiece(text.slice(start, end), style);
      this.break();
      start = end + 1;
    }
    this.addPiece(text.slice(start), style);
  }

  /** Appends text without a newline in one style, on the current line. */
  private addPiece(piece: string, style: number): void {
    this.text += piece;
    this.styles += String.fromCharCode(style).repeat(piece.length);
  }

  /** Appends a piece already styled, on the current line. */
  addStyled(piece: StyledLine): void {
    this.text += piece.text;
    this.styles += piece.styles;
  }

  /** Ends the current line (empty or not). */
  break(): void {
    this.lines.push({ text: this.text, styles: this.styles });
    this.text = this.styles = "";
  }

  /** The lines, the unfinished one included if it holds anything. */
  finish(): StyledLine[] {
    if (this.text) this.break();
    return this.lines;
  }
}

export function plainLine(text: string, style = 0): StyledLine {
  return { text, styles: String.fromCharCode(style).repeat(text.length) };
}

/** `prefix` before the first line, `indent` before the others (a list bullet, a quote bar). */
export function prefixLines(lines: StyledLine[], prefix: StyledLine, indent: StyledLine = prefix): StyledLine[] {
  return lines.map((line, index) => {
    const head = index === 0 ? prefix : indent;
    return { text: head.text + line.text, styles: head.styles + line.styles };
  });
}

// Per piece of every rendered line while a reply streams (belowTopTier says why).
belowTopTier(LineBuilder.prototype.add);
