import type { Mutant } from "../mutate.ts";

/** What keeps memory from growing with a long session (bench:tui's million tokens). */
export const MUTANTS: Mutant[] = [
  {
    name: "a finished run stays alive through its cleared redraw ticker",
    file: "src/tui/run-control.ts",
    find: "    this.ticker = null;\n",
    replace: "",
  },
];
