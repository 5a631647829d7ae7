import type { Mutant } from "../mutate.ts";

/** What keeps memory from growing with a long session (bench:tui's million tokens). */
export const MUTANTS: Mutant[] = [
  {
    name: "streamed text kept as a string per piece",
    file: "src/model/text-pieces.ts",
    find: "    if (this.pieces.length >= 1024) this.seal();\n",
    replace: "",
    tests: ["test/model/text-pieces.test.ts"],
  },
  {
    name: "a finished run stays alive through its cleared redraw ticker",
    file: "src/tui/run-control.ts",
    find: "    this.ticker = null;\n",
    replace: "",
    tests: ["test/tui/run-control.test.ts"],
  },
  {
    name: "Markdown without styles kept with a style code a character",
    file: "src/tui/transcript-buffer.ts",
    find: "    if (styles !== undefined && PLAIN_STYLES.test(styles)) styles = undefined;\n",
    replace: "",
    tests: ["test/tui/transcript-buffer.test.ts"],
  },
  {
    name: "a packed style run longer than a byte counts",
    file: "src/tui/transcript-buffer.ts",
    find: "end - at < MAX_RUN && ",
    replace: "",
    tests: ["test/tui/transcript-buffer.test.ts"],
  },
  {
    name: "a packed plain row read back with styles",
    file: "src/tui/transcript-buffer.ts",
    find: `  return styled ? pieces.join("") : undefined;`,
    replace: `  return pieces.join("");`,
    tests: ["test/tui/transcript-buffer.test.ts"],
  },
];
