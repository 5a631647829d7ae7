import type { Mutant } from "../mutate.ts";

/** Nothing lost when things go wrong (issue 40): hostile arguments, hang-ups, a server restarting. */
export const MUTANTS: Mutant[] = [
  // Arguments nested too deep or too large.
  {
    name: "arguments nested deeper than the limit are not refused",
    file: "src/protocol/argument-limits.ts",
    find: "if (nestedDeeperThan(args, depth)) return",
    replace: "if (false) return",
  },
  {
    name: "arguments larger than the tool's cap are not refused",
    file: "src/protocol/argument-limits.ts",
    find: "if (argumentsText(args).length > maxChars) return",
    replace: "if (false) return",
  },
  {
    name: "a JSON text one level deeper than the limit passes",
    file: "src/protocol/argument-limits.ts",
    find: "if (++depth > limit) return true;",
    replace: "if (++depth > limit + 1) return true;",
  },
  {
    name: "a value one level deeper than the limit passes",
    file: "src/protocol/argument-limits.ts",
    find: "if (depth + 1 > limit) return true;",
    replace: "if (depth > limit) return true;",
  },
  {
    name: "brackets inside strings count toward the depth",
    file: "src/protocol/argument-limits.ts",
    find: "} else if (code === QUOTE) inString = true;",
    replace: "} else if (false) inString = true;",
  },
  {
    name: "an escaped quote ends a string in the depth count",
    file: "src/protocol/argument-limits.ts",
    find: "if (code === BACKSLASH) at++;",
    replace: "if (false) at++;",
  },
  {
    name: "write_file has no cap of its own",
    file: "src/tools/write_file.ts",
    find: "  maxArgumentChars: FILE_TEXT_ARGUMENT_CHARS,\n",
    replace: "",
  },
  {
    name: "a tool's own cap is not validated",
    file: "src/tools/tool.ts",
    find: "  if (tool.maxArgumentChars !== undefined) ArgumentCharsSchema.parse(tool.maxArgumentChars, PARSE_ONCE);\n",
    replace: "",
  },
  {
    name: "hostile arguments reach the checkpoint",
    file: "src/core/run.ts",
    find: "oversized ?? hostile ?? cutOffCall(call, reply, this.replyTokenCap)",
    replace: "oversized ?? cutOffCall(call, reply, this.replyTokenCap)",
  },
  {
    name: "hostile arguments go back to the server at every turn",
    file: "src/core/reply-faults.ts",
    find: "!screened[index] && replayable(call.arguments)",
    replace: "replayable(call.arguments)",
  },
  {
    name: "a value nested too deep is carried as a value (the logs overflow on it)",
    file: "src/model/reply.ts",
    find: "return typeof args !== \"string\" && valueNestedDeeperThan(args, ARGUMENT_LIMITS.max_depth) ? jsonText(args) : args;",
    replace: "return args;",
  },
  {
    name: "canonical JSON is JSON.stringify again (recursive)",
    file: "src/protocol/canonical.ts",
    find: "  return jsonText(value, true);",
    replace: "  return JSON.stringify(value);",
  },
  {
    name: "text calls: quotes do not start strings when the JSON's start is looked for",
    file: "src/model/text-calls/json.ts",
    find: "if (char === '\"' && !escaped(text, at)) inString = !inString;",
    replace: "if (false) inString = !inString;",
  },
  {
    name: "text calls: a [TOOL_CALLS] segment that is no call is skipped",
    file: "src/model/text-calls/mistral.ts",
    find: "    if (!found) break;",
    replace: "    if (!found) continue;",
  },
  // Hang-ups.
  {
    name: "a second hang-up kills a headless run before its stop event",
    file: "src/cli/run.ts",
    find: "  for (const name of HANG_UPS) process.on(name, onSignal);",
    replace: "  for (const name of HANG_UPS) process.once(name, onSignal);",
  },
  {
    name: "the TUI exits on a hang-up before its run has ended",
    file: "src/tui/app.ts",
    find: "await Promise.all([runEnded, this.session.mcp.close(), this.server.stop()]);",
    replace: "await Promise.all([this.session.mcp.close(), this.server.stop()]);",
  },
  {
    name: "quitting the TUI does not wait for the run",
    file: "src/tui/run-control.ts",
    find: "    return this.ended;\n",
    replace: "    return Promise.resolve();\n",
  },
  {
    name: "quitting the TUI starts a queued message",
    file: "src/tui/run-control.ts",
    find: "    this.queue.length = 0;\n",
    replace: "",
  },
  {
    name: "a second hang-up kills the TUI mid-cleanup",
    file: "src/tui/screen.ts",
    find: "    for (const repeated of HANG_UPS) process.on(repeated, ignoreSignal);\n",
    replace: "",
  },
  // A server restarting.
  {
    name: "a reply that began is sent again",
    file: "src/model/reconnect.ts",
    find: "if (!(error instanceof ServerUnavailable) || began || signal.aborted) throw error;",
    replace: "if (!(error instanceof ServerUnavailable) || signal.aborted) throw error;",
  },
  {
    name: "every failure is retried",
    file: "src/model/reconnect.ts",
    find: "if (!(error instanceof ServerUnavailable) || began || signal.aborted) throw error;",
    replace: "if (began || signal.aborted) throw error;",
  },
  {
    name: "reconnecting is not bounded by reconnect_seconds",
    file: "src/model/reconnect.ts",
    find: "if (left <= 0) throw",
    replace: "if (false) throw",
  },
  {
    name: "no backoff: the same short wait every time",
    file: "src/model/reconnect.ts",
    find: "return Math.min(BACKOFF_MS.first * 2 ** (retry - 1), BACKOFF_MS.max);",
    replace: "return BACKOFF_MS.first;",
  },
  {
    name: "a server that never answered is waited for (no server takes 30 s to say so)",
    file: "src/model/reconnect.ts",
    find: "throw this.answered && error instanceof ModelError",
    replace: "throw error instanceof ModelError",
  },
  {
    name: "a stop during a wait sends the request again",
    file: "src/model/reconnect.ts",
    find: "        if (signal.aborted) throw error;\n",
    replace: "",
  },
  {
    name: "a stop does not end the wait",
    file: "src/model/reconnect.ts",
    find: "    signal.addEventListener(\"abort\", done, { once: true });",
    replace: "",
  },
  {
    name: "503 Loading model is not retried",
    file: "src/model/llamacpp.ts",
    find: "    if (loading) return loading;\n",
    replace: "",
  },
  {
    name: "Ollama does not reconnect",
    file: "src/model/ollama.ts",
    find: "const response = await this.reconnect.response(exchange.send({ method: \"POST\", body, reply: true }));",
    replace: "const response = await exchange.send({ method: \"POST\", body, reply: true });",
  },
  {
    name: "retries are not shown as model_retry events",
    file: "src/core/run.ts",
    find: "        yield { kind: \"model_retry\", step: steps, attempt: delta.attempt, reason: delta.reason };\n",
    replace: "",
  },
  {
    name: "a reply nested hundreds deep goes to marked's recursive lexer",
    file: "src/tui/markdown/render.ts",
    find: "  if (DEEP_NESTING.test(markdown)) return",
    replace: "  if (false) return",
  },
];
