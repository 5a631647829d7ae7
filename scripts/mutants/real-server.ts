import type { Mutant } from "../mutate.ts";

/** What a real llama-server showed (issue 37): cut-off replies, the prompt's size, doctor's advice. */
export const MUTANTS: Mutant[] = [
  {
    name: "a cut-off call goes back to the server as the fragment it was",
    file: "src/core/run.ts",
    find: "tool_calls: replayableCalls(reply.tool_calls, screened)",
    replace: "tool_calls: reply.tool_calls",
    tests: ["test/core/loop.test.ts"],
  },
  {
    name: "a call cut off at the cap is refused without saying so",
    file: "src/core/run.ts",
    find: "oversized ?? hostile ?? cutOffCall(call, reply, this.replyTokenCap)",
    replace: "oversized ?? hostile",
    tests: ["test/core/loop.test.ts"],
  },
  {
    name: "a reply cut off with no call counts as an answer",
    file: "src/core/reply-faults.ts",
    find: "    if (cutOffAtCap(reply)) return \"cut_off_reply\";\n",
    replace: "",
    tests: ["test/core/loop.test.ts"],
  },
  {
    name: "cut-off replies in a row never stop the run",
    file: "src/core/reply-faults.ts",
    find: "const again = fault !== null && fault === this.previous;",
    replace: "const again = fault === \"empty_reply\" && fault === this.previous;",
    tests: ["test/core/loop.test.ts"],
  },
  {
    name: "doctor blames --jinja when the template renders tools",
    file: "src/cli/doctor-tool-calls.ts",
    find: "  if (templateTools === true) return",
    replace: "  if (templateTools === \"never\" as unknown) return",
    // The real prose model never ends a reply, so its probe is cut at the cap (issue 50): a fake server's prose is what reaches this line.
    tests: ["test/cli/doctor.test.ts"],
  },
  {
    name: "doctor blames the model when the template cannot render tools",
    file: "src/cli/doctor-tool-calls.ts",
    find: "  if (templateTools === false && protocol !== \"prompted\") return",
    replace: "  if (templateTools === \"never\" as unknown && protocol !== \"prompted\") return",
    tests: ["test/cli/llama-server.test.ts"],
  },
  {
    name: "the server's count of the prompt is not asked",
    file: "src/core/context.ts",
    find: "const counted = (await this.options.countTokens?.(messages, tools, signal)) ?? null;",
    replace: "const counted = null as number | null;",
    tests: ["test/core/discipline.test.ts"],
  },
  {
    name: "the estimate is not calibrated by the server's count",
    file: "src/core/context.ts",
    find: "    if (counted && chars) this.tokensPerChar = counted / chars;\n",
    replace: "",
    tests: ["test/core/discipline.test.ts"],
  },
  {
    name: "llama.cpp's prompt count is never asked",
    file: "src/model/llamacpp.ts",
    find: "    if (!this.canCount || !this.served.llamaCpp) return null;",
    replace: "    return null;",
    tests: ["test/model/llamacpp-real.test.ts"],
  },
];
