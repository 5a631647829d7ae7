import type { Mutant } from "../mutate.ts";

/** Any architecture (issue 49): what the GGUF says of its layers, the window, and the flags that keep the cache. */
export const MUTANTS: Mutant[] = [
  {
    name: "gguf: every layer counted as sliding",
    file: "src/model/gguf.ts",
    find: "if (!pattern || layer % pattern < pattern - 1) slidingLayers++;",
    replace: "slidingLayers++;",
    tests: ["test/model/gguf.test.ts"],
  },
  {
    name: "gguf: recurrent state not noticed",
    file: "src/model/gguf.ts",
    find: "    if (RECURRENT_KEYS.test(key)) recurrent = true;\n",
    replace: "",
    tests: ["test/model/gguf.test.ts"],
  },
  {
    name: "plan: the window ignores free memory",
    file: "src/model/server-plan.ts",
    find: "const window = Math.min(fromFile, byMemory, WINDOW_CEILING);",
    replace: "const window = Math.min(fromFile, WINDOW_CEILING);",
    tests: ["test/model/server-plan.test.ts"],
  },
  {
    name: "plan: the window capped at 32768 as before",
    file: "src/model/server-plan.ts",
    find: "const window = Math.min(fromFile, byMemory, WINDOW_CEILING);",
    replace: "const window = Math.min(fromFile, byMemory, 32_768);",
    tests: ["test/model/server-plan.test.ts"],
  },
  {
    name: "plan: --swa-full added whatever it costs",
    file: "src/model/server-plan.ts",
    find: "if (full <= budget) return",
    replace: "if (true) return",
    tests: ["test/model/server-plan.test.ts"],
  },
  {
    name: "plan: sliding-window layers get nothing",
    file: "src/model/server-plan.ts",
    find: "  if (!memory.slidingWindow) return { flags: [], cachePlan: null, cacheNote: null, batchedCompaction: false };",
    replace: "  if (true) return { flags: [], cachePlan: null, cacheNote: null, batchedCompaction: false };",
    tests: ["test/model/server-plan.test.ts", "test/model/llama-server-launch.test.ts"],
  },
  {
    name: "plan: recurrent layers treated as plain attention",
    file: "src/model/server-plan.ts",
    find: "  if (memory.recurrent) {",
    replace: "  if (false) {",
    tests: ["test/model/server-plan.test.ts"],
  },
  {
    name: "launch: the architecture's flags left off the command",
    file: "src/model/llama-server-process.ts",
    find: "...(launch.archArgs ?? []), ",
    replace: "",
    tests: ["test/model/llama-server-launch.test.ts"],
  },
  {
    name: "session: a server that cannot keep its cache keeps the default compaction",
    file: "src/session/start-run.ts",
    find: "return batched && canonicalJson(session.config.context) === canonicalJson(DEFAULT_CONTEXT_POLICY) ? BATCHED_CONTEXT_POLICY : session.config.context;",
    replace: "return session.config.context;",
    tests: ["test/session/context-policy.test.ts"],
  },
];
