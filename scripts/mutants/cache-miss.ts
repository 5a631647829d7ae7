import type { Mutant } from "../mutate.ts";

/** The server keeps its cache (issue 49): a miss seen, measured against what the conversation allowed, and named. */
export const MUTANTS: Mutant[] = [
  {
    name: "cache miss: expected is always the whole previous prompt",
    file: "src/core/cache-watch.ts",
    find: "const expected = changedAt === null ? previous.promptTokens :",
    replace: "const expected = true ? previous.promptTokens :",
    tests: ["test/core/cache-watch.test.ts"],
  },
  {
    name: "cache miss: any shortfall is a miss",
    file: "src/core/cache-watch.ts",
    find: "if (expected - reused < MISS_FLOOR || reused >= expected * MISS_SHARE) return null;",
    replace: "if (reused >= expected) return null;",
    tests: ["test/core/cache-watch.test.ts"],
  },
  {
    name: "cache miss: a cache that is off is blamed on another client",
    file: "src/core/cache-watch.ts",
    find: "if (!reusedBefore && !this.everReused) return",
    replace: "if (false) return",
    tests: ["test/core/cache-watch.test.ts"],
  },
  {
    name: "cache miss: never said by the run",
    file: "src/core/run.ts",
    find: "    if (miss) yield miss;\n",
    replace: "",
    tests: ["test/core/cache-watch.test.ts"],
  },
  {
    name: "cache miss: not shown in the verdicts pane",
    file: "src/tui/event-view.ts",
    find: '      verdicts.note(`cache: step ${event.step} reused ${event.reused} of ${event.expected} prompt tokens: ${event.cause}`, "yellow");\n',
    replace: "",
    tests: ["test/tui/event-view.test.ts"],
  },
  {
    name: "cache miss: the headless printer drops it",
    file: "src/cli/printer.ts",
    find: "    case \"cache_miss\":\n      return `[${event.step}] cache:",
    replace: "    case \"cache_miss\":\n      return null; `[${event.step}] cache:",
    tests: ["test/core/cache-watch.test.ts"],
  },
];
