/**
 * Markdown (marked's lexer) drawn as styled lines: headings, bold, italics (underlined), inline
 * code, links, lists, quotes, tables and fenced code (highlight.ts), never the raw markers. Line
 * breaks the model wrote are kept (a terminal reader expects the lines it was sent).
 */
import { Lexer, Tokenizer, getDefaults, type MarkedOptions, type Token, type Tokens } from "marked";
import { highlight, knownLanguage } from "./highlight.ts";
import { BOLD, LineBuilder, UNDERLINE, plainLine, prefixLines, withColor, type StyledLine } from "./style.ts";

const MUTED = withColor(0, "gray");
const RULE = "─".repeat(24);
const CODE_INDENT = "  ";

/** An underline of a setext heading (`Title` over `===` or `---`): a line of = or - alone. */
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/m;

/**
 * marked's tokenizer, but its setext-heading rule is tried only on text that has such an
 * underline: the rule's expression scans the rest of the text at every block, backtracking (a
 * sixth of the time lexing a streamed reply took, and seconds on a 400-line paragraph), and
 * without an underline it cannot match.
 */
class ReplyTokenizer extends Tokenizer {
  override lheading(src: string): Tokens.Heading | undefined {
    return SETEXT_UNDERLINE.test(src) ? super.lheading(src) : undefined;
  }
}

const LEXER_OPTIONS: MarkedOptions = { ...getDefaults(), tokenizer: new ReplyTokenizer() };

/**
 * marked's lexer recurses once per level of quotes, lists and emphasis: a reply nested hundreds
 * deep (200,000 `>`, 2,000 list levels) overflowed the stack or took a minute. Past this depth
 * the text is shown as written, in one plain block.
 */
const MAX_NESTING = 32;
// Within a line only ([ \t], never \s): a blob of blank lines must not make the check itself slow.
const DEEP_NESTING = new RegExp(`^(?:[ \\t]*>){${MAX_NESTING},}|^[ \\t]{${MAX_NESTING * 2},}[-*+\\d]|[*_~\\[]{${MAX_NESTING},}`, "m");

/** The blocks of a Markdown text, by marked's lexer; a text nested too deep for it is one block as written. */
export function lexMarkdown(markdown: string): Token[] {
  if (DEEP_NESTING.test(markdown)) return [{ type: "code", raw: markdown, text: markdown.replace(/\n$/, ""), codeBlockStyle: "indented" } as Token];
  return Lexer.lex(markdown, LEXER_OPTIONS);
}

/** Renders a whole Markdown text (sanitized). */
export function renderMarkdown(markdown: string): StyledLine[] {
  return renderBlocks(lexMarkdown(markdown));
}

export function renderBlocks(tokens: Token[]): StyledLine[] {
  return tokens.flatMap(renderBlock);
}

function renderBlock(token: Token): StyledLine[] {
  switch (token.type) {
    case "space":
      // Blank lines between blocks: one blank line on screen for any run of them.
      return [plainLine("")];
    case "heading": {
      const heading = token as Tokens.Heading;
      return renderInline(heading.tokens, heading.depth === 1 ? BOLD | UNDERLINE : BOLD);
    }
    case "paragraph":
      return renderInline((token as Tokens.Paragraph).tokens);
    case "text": {
      const text = token as Tokens.Text;
      return text.tokens ? renderInline(text.tokens) : renderInline([text]);
    }
    case "code": {
      const code = token as Tokens.Code;
      return renderCode(code.text, code.lang ?? "");
    }
    case "blockquote":
      return prefixLines(renderBlocks((token as Tokens.Blockquote).tokens), plainLine("│ ", MUTED));
    case "list":
      return renderList(token as Tokens.List);
    case "hr":
      return [plainLine(RULE, MUTED)];
    case "table":
      return renderTable(token as Tokens.Table);
    case "def":
      return [];
    default:
      // html and anything marked adds later: the text as written, escaped like all model text.
      return textLines(token.raw.replace(/\n+$/, ""));
  }
}

/** Code lines, coloured when the fence's info string names a language highlight.ts knows. */
export function renderCode(code: string, info: string): StyledLine[] {
  return indentCode(highlight(code, fenceLanguage(info)).lines);
}

/** The language a fence's info string (` ```ts title="x" `) names, if highlight.ts knows it. */
export function fenceLanguage(info: string): string | null {
  return knownLanguage(info.trim().split(/\s+/)[0] ?? "");
}

/** Fenced code is set off from prose by CODE_INDENT. */
export function indentCode(lines: StyledLine[]): StyledLine[] {
  return prefixLines(lines, plainLine(CODE_INDENT));
}

function renderList(list: Tokens.List): StyledLine[] {
  const start = typeof list.start === "number" ? list.start : 1;
  return list.items.flatMap((item, index) => {
    const marker = list.ordered ? `${start + index}. ` : "• ";
    const box = item.task ? (item.checked ? "[x] " : "[ ] ") : "";
    // A task item's checkbox is a token of its own in marked: the box above stands for it.
    const body = renderBlocks(item.tokens.filter((token) => token.type !== "checkbox"));
    return prefixLines(body.length ? body : [plainLine("")], plainLine(marker + box), plainLine(" ".repeat(marker.length)));
  });
}

function renderTable(table: Tokens.Table): StyledLine[] {
  const cells = [table.header, ...table.rows].map((row) => row.map((cell) => joinLines(renderInline(cell.tokens))));
  const widths = table.header.map((_, column) => Math.max(...cells.map((row) => Bun.stringWidth(row[column]?.text ?? ""))));
  return cells.map((row, index) => {
    const line = new LineBuilder();
    row.forEach((cell, column) => {
      if (column > 0) line.add(" │ ", MUTED);
      line.addStyled(cell);
      line.add(" ".repeat(widths[column]! - Bun.stringWidth(cell.text)));
    });
    line.break();
    // The header row is told apart by a rule under it.
    return index === 0 ? [...line.lines, plainLine(widths.map((width) => "─".repeat(width)).join("─┼─"), MUTED)] : line.lines;
  }).flat();
}

/** Inline tokens as lines (a newline in the text starts a line), every piece in `style` plus its own. */
export function renderInline(tokens: Token[], style = 0): StyledLine[] {
  const out = new LineBuilder();
  addInline(tokens, style, out);
  return out.finish();
}

function addInline(tokens: Token[], style: number, out: LineBuilder): void {
  for (const token of tokens) {
    switch (token.type) {
      case "strong":
        addInline((token as Tokens.Strong).tokens, style | BOLD, out);
        break;
      case "em":
        addInline((token as Tokens.Em).tokens, style | UNDERLINE, out);
        break;
      case "del":
        addInline((token as Tokens.Del).tokens, style, out);
        break;
      case "codespan":
        out.add((token as Tokens.Codespan).text, withColor(style, "yellow"));
        break;
      case "br":
        out.break();
        break;
      case "link": {
        const link = token as Tokens.Link;
        addInline(link.tokens, withColor(style | UNDERLINE, "blue"), out);
        if (link.href !== link.text && link.href !== `mailto:${link.text}`) out.add(` (${link.href})`, MUTED);
        break;
      }
      case "image": {
        const image = token as Tokens.Image;
        out.add(`[image: ${image.text || image.href}]`, MUTED);
        break;
      }
      case "text": {
        const text = token as Tokens.Text;
        if (text.tokens) addInline(text.tokens, style, out);
        else out.add(text.text, style);
        break;
      }
      case "escape":
        out.add((token as Tokens.Escape).text, style);
        break;
      default:
        // html, and any inline token marked adds later: as written.
        out.add(token.raw, style);
    }
  }
}

function textLines(text: string): StyledLine[] {
  const out = new LineBuilder();
  out.add(text);
  return out.finish();
}

function joinLines(lines: StyledLine[]): StyledLine {
  return { text: lines.map((line) => line.text).join(" "), styles: lines.map((line) => line.styles).join("\0") };
}
