import type { Mutant } from "../mutate.ts";

/** The context manager (src/core/context.ts) and the prompt cache's figures from the adapters. */
export const MUTANTS: Mutant[] = [
  {
    name: "old results re-cut every step",
    file: "src/core/context.ts",
    find: "if (policy && (asked || this.pressure(messages, toolsChars) >= this.threshold(policy))) messages = yield* this.compact(",
    replace: "if (policy) messages = yield* this.compact(",
  },
  {
    name: "old tool results not elided",
    file: "src/core/context.ts",
    find: "if (!elided.has(result.tool_call_id) && result.content.length > policy.elided_chars) batch.push(result.tool_call_id);",
    replace: "",
  },
  {
    name: "newest results elided too",
    file: "src/core/context.ts",
    find: "if (protecting && (newest < policy.min_whole || wholeChars + result.content.length <= budgetChars * policy.whole_share)) {",
    replace: "if (false) {",
  },
  {
    name: "no summary when elision cannot get under the target",
    file: "src/core/context.ts",
    find: "if (!range || (!summarize && this.pressure(tentative, toolsChars) < target)) return yield* elide(current);",
    replace: "if (!range || !summarize) return yield* elide(current);",
  },
  {
    name: "summary request without the tools block",
    file: "src/core/context.ts",
    find: "const text = await this.options.summarize([...asked, request], tools, signal);",
    replace: "const text = await this.options.summarize([...asked, request], [], signal);",
  },
  {
    name: "compactions not restored with the session",
    file: "src/session/store.ts",
    find: "this.context = restored ? restoreContext(restored.events.map((saved) => saved.event)) : emptyContext();",
    replace: "this.context = emptyContext();",
  },
  {
    name: "summary splits a call from its result",
    file: "src/core/context.ts",
    find: "const upTo = turns[turns.length - keepTurns]!;",
    replace: "const upTo = turns[turns.length - keepTurns]! + 1;",
  },
  {
    name: "context fit not checked",
    file: "src/core/context.ts",
    find: "if (this.window && tokens + replyTokenCap > this.window) {",
    replace: "if (false) {",
  },
  {
    name: "llama.cpp cache figure dropped",
    file: "src/model/llamacpp.ts",
    find: "    cached_tokens: cached,\n",
    replace: "",
  },
  {
    name: "llama.cpp prefill time dropped",
    file: "src/model/llamacpp.ts",
    find: "    prefill_ms: numberOrNull(timings?.prompt_ms),\n",
    replace: "",
  },
  {
    name: "Ollama prefill time dropped",
    file: "src/model/ollama.ts",
    find: "prefill_ms: typeof chunk.prompt_eval_duration === \"number\" ? chunk.prompt_eval_duration / 1e6 : null,",
    replace: "prefill_ms: null,",
  },
  {
    name: "cache figures lost between the reply and its event",
    file: "src/model/reply.ts",
    find: "cached_tokens: this.usage?.cached_tokens ?? null,",
    replace: "cached_tokens: null,",
  },
  {
    name: "cache_prompt not sent to llama.cpp",
    file: "src/model/llamacpp.ts",
    find: "      ...(this.served.llamaCpp ? { cache_prompt: true } : {}),\n",
    replace: "",
  },
];
