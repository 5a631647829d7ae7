import type { Mutant } from "../mutate.ts";

/** The Markdown renderer's and the tool verdicts list's guards (src/tui/markdown/, panes/verdicts-pane.ts, overlay.ts). */
export const MUTANTS: Mutant[] = [
  {
    name: "bold drawn with its raw stars",
    file: "src/tui/markdown/render.ts",
    find: "addInline((token as Tokens.Strong).tokens, style | BOLD, out);",
    replace: "out.add(token.raw, style);",
    tests: ["test/tui/markdown/render.test.ts"],
  },
  {
    name: "a fence's info string shown as text (fence line not recognised mid-stream)",
    file: "src/tui/markdown/stream.ts",
    find: "const shown = MAYBE_FENCE.test(this.partial) ? \"\" : closeMarkers(this.partial);",
    replace: "const shown = closeMarkers(this.partial);",
    tests: ["test/tui/markdown/stream.test.ts"],
  },
  {
    name: "code inside an open block comment or template string committed as settled",
    file: "src/tui/markdown/highlight.ts",
    find: "return { lines: painter.out.lines, settled: painter.lastType === undefined };",
    replace: "return { lines: painter.out.lines, settled: true };",
    tests: ["test/tui/markdown/highlight.test.ts"],
  },
  {
    name: "the settling probe drawn as code",
    file: "src/tui/markdown/highlight.ts",
    find: "this.out.add(text.length > this.unshown ? text.slice(0, this.unshown) : text, color ? withColor(0, color) : 0);",
    replace: "this.out.add(text, color ? withColor(0, color) : 0);",
    tests: ["test/tui/markdown/highlight.test.ts"],
  },
  {
    name: "half-streamed markers drawn raw",
    file: "src/tui/markdown/stream.ts",
    find: "export function closeMarkers(line: string): string {",
    replace: "export function closeMarkers(line: string): string {\n  if (line === line) return line;",
    tests: ["test/tui/markdown/stream.test.ts"],
  },
  {
    name: "the model's Markdown reaches the terminal unsanitized",
    file: "src/tui/markdown/stream.ts",
    find: "this.carry += sanitize(text);",
    replace: "this.carry += text;",
    tests: ["test/tui/markdown/stream.test.ts"],
  },
  {
    name: "a growing block's rows are never taken back",
    file: "src/tui/transcript-buffer.ts",
    find: "  replaceGrowing(final: StyledLine[], growing: StyledLine[], voice: Voice): void {\n    this.dropGrowing();",
    replace: "  replaceGrowing(final: StyledLine[], growing: StyledLine[], voice: Voice): void {",
    tests: ["test/tui/transcript-buffer.test.ts"],
  },
  {
    name: "a setext heading never tried",
    file: "src/tui/markdown/render.ts",
    find: "return SETEXT_UNDERLINE.test(src) ? super.lheading(src) : undefined;",
    replace: "return undefined;",
    tests: ["test/tui/markdown/render.test.ts"],
  },
  {
    name: "a styled row drawn in the voice's look alone",
    file: "src/tui/cell-writer.ts",
    find: "const styled = styles !== undefined && styleAttrs !== undefined;",
    replace: "const styled = false;",
    tests: ["test/tui/panes/transcript-pane.test.ts"],
  },
  {
    name: "a tool result shown unescaped in the overlay",
    file: "src/tui/overlay.ts",
    find: "content: sanitize(text),",
    replace: "content: text,",
    tests: ["test/tui/panes/verdicts-pane.test.ts"],
  },
  {
    name: "markup in the model's arguments parsed in the verdicts pane",
    file: "src/tui/panes/verdicts-pane.ts",
    find: "${safeTagged(args)}",
    replace: "${args}",
    tests: ["test/tui/panes/verdicts-pane.test.ts"],
  },
  {
    name: "the verdicts pane takes the focus with nothing selected",
    file: "src/tui/panes/verdicts-pane.ts",
    find: 'this.box.on("focus", () => (this.selected = this.calls().at(-1) ?? null));',
    replace: 'this.box.on("focus", () => (this.selected = null));',
    tests: ["test/tui/panes/verdicts-pane.test.ts"],
  },
];
