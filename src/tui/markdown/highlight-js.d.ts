/**
 * The little of highlight.js's core that highlight.ts uses, typed here (tsconfig's `paths` points
 * the import at this file): the package's own types load the DOM's lib, whose ReadableStream lacks
 * the async iterator Bun's has, and tsc then fails on every `for await` over a stream.
 */
interface HighlightJs {
  registerLanguage(name: string, grammar: unknown): void;
  getLanguage(name: string): object | undefined;
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): unknown;
  configure(options: { __emitter: new (options: unknown) => object }): void;
}
declare const hljs: HighlightJs;
export default hljs;
