/**
 * The reply bench:tui streams (and bench-markdown.ts renders): Markdown, half of it fenced code,
 * one numbered word per chunk, so a screen shows which chunks arrived.
 */

/** The streamed tokens: lower-case and digits only, so an upper-case key typed is told from them. */
export const tokenText = (n: number) => `w${n}`;

/** Words a line of the streamed reply, and lines a block (half prose, half a fence). */
const LINE_WORDS = 24;
const BLOCK_LINES = 8;

/**
 * Chunk `i` of `count` of a Markdown reply that is half fenced code: blocks of four lines of prose
 * (a heading, then lines with a **bold** and an `inline code` word every six) and four lines of
 * TypeScript in a ```ts fence. Each chunk still carries exactly one numbered word, in order.
 */
export function markdownToken(i: number, count: number): string {
  const word = tokenText(i + 1);
  const line = Math.floor(i / LINE_WORDS);
  const at = i % LINE_WORDS;
  const lineOfBlock = line % BLOCK_LINES;
  const code = lineOfBlock >= BLOCK_LINES / 2;
  const last = i === count - 1;
  const endsLine = at === LINE_WORDS - 1 || last;
  let text: string;
  if (code) text = [`let ${word} =`, `${word} +`, `"${word}"`, `/* ${word} */;`][at % 4]!;
  else text = at % 6 === 1 ? `**${word}**` : at % 6 === 4 ? `\`${word}\`` : word;
  const opens = code && lineOfBlock === BLOCK_LINES / 2 && at === 0 ? "```ts\n" : !code && lineOfBlock === 0 && at === 0 ? "## " : "";
  const closes = code && endsLine && (lineOfBlock === BLOCK_LINES - 1 || last) ? "```\n" : "";
  return opens + text + (endsLine ? "\n" : " ") + closes;
}
