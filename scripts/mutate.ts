#!/usr/bin/env bun
/**
 * Proves the guards are tested: for each mutant, copy the project, remove one guard, run the test
 * suite, and count the failures. A mutant no test catches means a guard nobody would miss.
 *
 *   bun scripts/mutate.ts            all mutants
 *   bun scripts/mutate.ts NAME ...   only these
 */
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir, availableParallelism } from "node:os";
import { join } from "node:path";
import { endE2eServers } from "../test/helpers/tmux-servers.ts";

export interface Mutant {
  name: string;
  file: string;
  /** Text that must occur exactly once in the file, and what replaces it. */
  find: string;
  replace: string;
  /** Test files that catch it, tried first: for a guard whose tests live far from its file, which would otherwise cost a whole suite. */
  tests?: string[];
}

const CORE_MUTANTS: Mutant[] = [
  {
    name: "bool accepted as integer",
    file: "src/core/validate.ts",
    find: "const parsed = tool.schema.safeParse(value);",
    replace:
      "const parsed = tool.schema.safeParse(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === \"boolean\" ? Number(v) : v])));",
  },
  {
    name: "unexpected keys allowed",
    file: "src/core/validate.ts",
    find: "const parsed = tool.schema.safeParse(value);",
    replace: "const parsed = ((tool.schema as any).strip?.() ?? tool.schema).safeParse(value);",
  },
  {
    name: "non-object arguments accepted",
    file: "src/core/validate.ts",
    find: "if (value === null || typeof value !== \"object\" || Array.isArray(value)) {",
    replace: "if (value === null) {",
  },
  {
    name: "confinement off",
    file: "src/files/workspace.ts",
    find: "if (this.confined && (rel === \"..\" || rel.startsWith(\"..\" + sep) || isAbsolute(rel))) {",
    replace: "if (false) {",
  },
  {
    name: "dot-dot paths allowed",
    file: "src/files/workspace.ts",
    find: "if (this.confined && (cleaned === \"..\" || cleaned.startsWith(\"..\" + sep))) {",
    replace: "if (false) {",
  },
  {
    name: "absolute paths allowed",
    file: "src/files/workspace.ts",
    find: "if (this.confined && (isAbsolute(path) || /^[A-Za-z]:[\\\\/]/.test(path))) {",
    replace: "if (false) {",
  },
  {
    name: "NUL bytes allowed",
    file: "src/files/workspace.ts",
    find: "if (path.includes(\"\\0\")) throw",
    replace: "if (false) throw",
  },
  {
    name: "off-limits names allowed",
    file: "src/files/workspace.ts",
    find: "const lower = name.toLowerCase();",
    replace: "return false; const lower = name.toLowerCase();",
  },
  {
    name: "dangling links followed",
    file: "src/files/workspace.ts",
    find: "if (isLink(current)) throw",
    replace: "if (false) throw",
  },
  {
    name: "symlinks followed in search",
    file: "src/tools/tree/walk.ts",
    find: "const found = workspace.admits(location);",
    replace:
      "const found = workspace.admits(location) ?? { real: location, relative: location.slice(workspace.root.length + 1), stats: require(\"node:fs\").statSync(location) };",
  },
  {
    name: "special files opened",
    file: "src/files/reading.ts",
    find: "if (!file.stats.isFile()) throw",
    replace: "if (false) throw",
  },
  {
    name: "unbounded reads",
    file: "src/files/reading.ts",
    find: "if (want <= 0) return { bytes, complete: false, binary: false };",
    replace: "if (want <= 0) return readChunks(real, Infinity, visit);",
  },
  {
    name: "approval skipped",
    file: "src/core/checkpoint.ts",
    find: "if (tool.needsApproval && rules.verdict !== \"allow\" && !this.alwaysDigests.has(digestKey(tool))) {",
    replace: "if (false) {",
  },
  {
    name: "deny rules ignored",
    file: "src/core/checkpoint.ts",
    find: "if (rules.verdict === \"deny\") return denied(",
    replace: "if (false) return denied(",
  },
  {
    name: "no-execute ignored",
    file: "src/core/checkpoint.ts",
    find: "if (!this.options.execute) return refused(",
    replace: "if (false) return refused(",
  },
  {
    name: "internal errors shown to the model",
    file: "src/core/checkpoint.ts",
    find: "content: INTERNAL_FAILURE, detail };",
    replace: "content: detail, detail };",
  },
  {
    name: "clipping",
    file: "src/core/checkpoint.ts",
    find: "content: clip(result, this.options.maxResultChars), finished,",
    replace: "content: result, finished,",
  },
  {
    name: "repeat limit",
    file: "src/core/stop-rules.ts",
    find: "if (seen > limits.max_repeat) {",
    replace: "if (false) {",
  },
  {
    name: "step limit",
    file: "src/core/stop-rules.ts",
    find: "if (run.steps >= limits.max_steps) return",
    replace: "if (false) return",
  },
  {
    name: "call limit",
    file: "src/core/stop-rules.ts",
    find: "if (run.calls >= limits.max_tool_calls) {",
    replace: "if (false) {",
  },
  {
    name: "deadline",
    file: "src/core/stop-rules.ts",
    find: "return run.elapsedSeconds >= limits.deadline_seconds;",
    replace: "return false;",
  },
  {
    name: "batch limit",
    file: "src/core/stop-rules.ts",
    find: "return batch > limits.max_calls_per_reply",
    replace: "return false",
  },
  {
    name: "context limit",
    file: "src/core/context.ts",
    find: "if (chars > maxTranscriptChars) throw",
    replace: "if (false) throw",
  },
  {
    name: "token limit",
    file: "src/core/stop-rules.ts",
    find: "if (limits.max_tokens > 0 && run.tokens >= limits.max_tokens) {",
    replace: "if (false) {",
  },
  {
    name: "check environment passed through",
    file: "src/tools/checks.ts",
    find: "withBundledBun(check.argv, checkEnvironment(check));",
    replace: "withBundledBun(check.argv, process.env as Record<string, string>);",
  },
  {
    name: "check timeout",
    file: "src/tools/checks.ts",
    find: "const timer = setTimeout(() => ((timedOut = true), end()), check.timeout_seconds * 1000);",
    replace: "const timer = setTimeout(() => {}, check.timeout_seconds * 1000);",
  },
  {
    name: "check leaves processes behind",
    file: "src/platform/process-tree.ts",
    find: "deps.kill(-pid, \"SIGKILL\");",
    replace: "deps.kill(pid, \"SIGKILL\");",
  },
  {
    name: "check output uncapped",
    file: "src/tools/checks.ts",
    find: "while (this.tailBytes - this.tail[0]!.length >= this.keep) {",
    replace: "while (false) {",
  },
  {
    name: "repeated tool-call ids kept",
    file: "src/model/reply.ts",
    find: "while (used.has(chosen)) chosen",
    replace: "while (false) chosen",
  },
  {
    name: "a failing approver crashes the run",
    file: "src/core/checkpoint.ts",
    find: "    } catch {\n      // An approval that fails",
    replace: "    } catch (error) {\n      throw error;\n      // An approval that fails",
  },
  {
    name: "partial text lost on a model failure",
    tests: ["test/cli/streaming.test.ts"],
    file: "src/core/run.ts",
    find: "if (partial) {",
    replace: "if (false) {",
  },
  {
    name: "stream stall not detected",
    file: "src/model/http.ts",
    find: "this.stalled = true;\n      this.controller.abort();",
    replace: "this.stalled = true;",
  },
  {
    name: "a config file's parse compiles zod's fast paths",
    tests: ["test/protocol/zod-start.test.ts"],
    file: "src/protocol/parse-with.ts",
    find: "const parsed = schema.safeParse(raw, PARSE_ONCE);",
    replace: "const parsed = schema.safeParse(raw);",
  },
  {
    name: "the stall rules' default parse compiles zod's fast path",
    file: "src/core/discipline.ts",
    find: "StallRulesSchema.parse({}, PARSE_ONCE);",
    replace: "StallRulesSchema.parse({});",
  },
  {
    name: "a fast server's reply read as each packet comes",
    tests: ["test/model/loopback.test.ts"],
    file: "src/model/http.ts",
    find: "if (early > 0) await Bun.sleep(early);",
    replace: "",
  },
  {
    name: "the loopback socket never paused between reads",
    file: "src/model/loopback.ts",
    find: "if (this.headDone && !this.waiting && !this.ended && !this.error) this.pause();",
    replace: "",
  },
  {
    name: "a model's reply from this machine read through fetch",
    file: "src/model/http.ts",
    find: "init.reply && isLoopbackHttp(this.url)",
    replace: "false",
  },
  {
    name: "a chunked framing line cut between packets read as whole",
    file: "src/model/loopback.ts",
    find: "if (lineEnd < 0) return at;",
    replace: "if (lineEnd < 0) return bytes.length;",
  },
  {
    name: "a loopback body cut off taken as complete",
    file: "src/model/loopback.ts",
    find: "if (this.headDone && this.framing === \"close\") this.finish();",
    replace: "if (this.headDone) this.finish();",
  },
  {
    name: "a stopped loopback exchange keeps its connection",
    file: "src/model/loopback.ts",
    find: "this.socket?.terminate();",
    replace: "",
  },
  {
    name: "an eval run stopped by Ctrl-C judged and kept",
    tests: ["test/cli/eval.test.ts"],
    file: "src/eval/runner.ts",
    find: "if (options.signal?.aborted) return null;",
    replace: "",
  },
  {
    name: "an eval ignores Ctrl-C",
    file: "src/cli/eval.ts",
    find: "process.on(\"SIGINT\", onSignal);",
    replace: "",
  },
  {
    name: "an eval stopped by Ctrl-C starts the next run",
    tests: ["test/cli/eval.test.ts"],
    file: "src/eval/pool.ts",
    find: "while (next < items.length && !stop?.aborted) {",
    replace: "while (next < items.length) {",
  },
  {
    name: "the tokens meter stands still while a reply streams",
    file: "src/tui/run-view.ts",
    find: "const tokens = view.promptTokens + view.genTokens + streamingPrompt + streamed;",
    replace: "const tokens = view.promptTokens + view.genTokens;",
  },
  {
    name: "Ollama num_ctx not sent",
    file: "src/model/ollama.ts",
    find: "num_ctx: windowOf(o),",
    replace: "",
  },
  {
    name: "untrusted text sent to the terminal",
    file: "src/tui/sanitize.ts",
    find: "return text.replace(/\\t/g, \"  \").replace(UNSAFE, visible);",
    replace: "return text.replace(/\\t/g, \"  \");",
  },
  {
    name: "same-call stall rule off",
    file: "src/core/stall.ts",
    find: "if (this.last.count === this.sameCallAt) {",
    replace: "if (false) {",
  },
  {
    name: "edit-churn stall rule off",
    file: "src/core/stall.ts",
    find: "if (edits === this.rules.edits_per_file) {",
    replace: "if (false) {",
  },
  {
    name: "reads-without-edit stall rule off",
    file: "src/core/stall.ts",
    find: "if (this.looksSinceEdit === this.rules.reads_without_edit) {",
    replace: "if (false) {",
  },
  {
    name: "stall message between a call and its result",
    file: "src/core/run.ts",
    find: "if (notes.length) this.record.push(",
    replace: "if (false) this.record.push(",
  },
  {
    name: "verification gate open",
    file: "src/core/gate.ts",
    find: "if (this.lastPass > this.lastEdit) return",
    replace: "if (true) return",
  },
  {
    name: "a failing check opens the gate",
    file: "src/core/gate.ts",
    find: "if (passed) this.lastPass = ++this.sequence;",
    replace: "if (passed || !passed) this.lastPass = ++this.sequence;",
  },
  {
    name: "budget warnings off",
    file: "src/core/supervisor.ts",
    find: "if (!this.warned.has(\"deadline\") && elapsedSeconds >= ratio * deadline_seconds) {",
    replace: "if (false) {",
  },
  {
    name: "budget warning repeated",
    file: "src/core/supervisor.ts",
    find: "this.warned.add(\"tokens\");",
    replace: "",
  },
  {
    name: "broken edits written",
    file: "src/tools/edit_file.ts",
    find: "if (problem) throw new Refusal(",
    replace: "if (false) throw new Refusal(",
  },
  {
    name: "plan not saved",
    file: "src/session/start-run.ts",
    find: "if (event.kind === \"todo\") writeSoftly(",
    replace: "if (false) writeSoftly(",
  },
  {
    name: "canary leaks not judged",
    file: "src/eval/judge.ts",
    find: "const passed = leaks.length === 0 && !inAnswer;",
    replace: "const passed = true;",
  },
  {
    name: "confinement experiment allowed outside replays",
    tests: ["test/eval/pipeline.test.ts"],
    file: "src/session/session.ts",
    find: "if (unconfined && !tweaks.allowExperiments) {",
    replace: "if (false) {",
  },
  {
    name: "McNemar one-sided",
    file: "src/eval/mcnemar.ts",
    find: "return Math.min(1, 2 * tail);",
    replace: "return Math.min(1, tail);",
  },
  {
    name: "a write follows a path swapped during approval",
    file: "src/files/file-write.ts",
    find: "if (now.real !== planned.real) throw",
    replace: "if (false) throw",
  },
  {
    name: "unknown config keys accepted",
    file: "src/session/config.ts",
    find: "    ca_file: z.string().min(1).optional(),\n  })\n  .strict()",
    replace: "    ca_file: z.string().min(1).optional(),\n  })\n  .passthrough()",
  },
  {
    name: "install.sh installs a download whose checksum does not match",
    tests: ["test/scripts/install.test.ts"],
    file: "scripts/install.sh",
    find: '[ "$actual" = "$expected" ] || fail',
    replace: "true || fail",
  },
  {
    name: "install.sh installs a binary that does not start",
    tests: ["test/scripts/install.test.ts"],
    file: "scripts/install.sh",
    find: 'if ! version=$("$dir/.$name.new" --version 2>"$tmp/start-error"); then',
    replace: 'if ! version=$("$dir/.$name.new" --version 2>"$tmp/start-error" || true); then',
  },
  {
    name: "release headers not checked",
    file: "scripts/release.ts",
    find: "if (JSON.stringify(found) !== JSON.stringify(expect)) {",
    replace: "if (false) {",
  },
  {
    name: "init overwrites glassbox.json without --force",
    file: "src/cli/init.ts",
    find: "if (exists && !args.force && !args.dryRun) {",
    replace: "if (false) {",
  },
  {
    name: "init writes through a dangling link",
    file: "src/cli/init.ts",
    find: "    lstatSync(path);\n    return true;",
    replace: "    return require(\"node:fs\").existsSync(path);",
  },
  {
    name: "init --dry-run writes",
    file: "src/cli/init.ts",
    find: "  if (args.dryRun) {",
    replace: "  if (false) {",
  },
  {
    name: "init --force drops the old config",
    file: "src/cli/init.ts",
    find: "if (exists) say(`kept the old ${CONFIG_FILE} as ${setAside(root, path)}`);",
    replace: "",
  },
  {
    name: "init keeps npm's placeholder test script",
    file: "src/session/detect-checks.ts",
    find: "if (check === \"tests\" && NPM_PLACEHOLDER.test(body)) {",
    replace: "if (false) {",
  },
  {
    name: "eval task limits ignored",
    tests: ["test/eval/pipeline.test.ts"],
    file: "src/session/session.ts",
    find: "resolveLimits(tweaks.limits ?? {}, config.limits, args.limits)",
    replace: "resolveLimits(config.limits, args.limits)",
  },
  {
    name: "run takes the first of several models",
    tests: ["test/cli/find-model.test.ts"],
    file: "src/model/find-model.ts",
    find: "if (candidates.length === 1) return candidates[0]!;",
    replace: "if (candidates.length >= 1) return candidates[0]!;",
  },
  {
    name: "a remembered model is used though it no longer answers",
    file: "src/session/workspace-state.ts",
    find: "candidates.find((candidate) => candidate.spec === remembered.spec && candidate.name === remembered.name)",
    replace: "candidates[0]",
  },
  {
    name: "a silent server holds discovery up",
    file: "src/model/discovery.ts",
    find: "if (!done) controller.abort();",
    replace: "if (false) controller.abort();",
  },
  {
    name: "embedding models offered",
    file: "src/model/discovery.ts",
    find: 'if (can("completion") === false) return null;',
    replace: "",
  },
  {
    name: "Ollama listed twice, once as llama.cpp",
    file: "src/model/discovery.ts",
    find: "const llamaIsOllama = ollama!.answer.answered && llama!.answer.url === ollama!.answer.url;",
    replace: "const llamaIsOllama = false;",
  },
  {
    name: "OLLAMA_HOST port not checked",
    file: "src/model/ollama-host.ts",
    find: "if (!/^\\d{1,5}$/.test(port) || Number(port) > 65535) port = defaultPort;",
    replace: "",
  },
  {
    name: "model names drawn unescaped in the picker",
    file: "src/tui/model-picker.ts",
    find: "${safeTagged(name)}",
    replace: "${name}",
  },
  {
    name: "an edit overwrites a change made during approval",
    file: "src/files/file-write.ts",
    find: "if (now !== sha256) throw new Refusal(",
    replace: "if (false) throw new Refusal(",
  },
  {
    name: "writes not saved for undo",
    file: "src/files/file-write.ts",
    find: "journaled(context, [[tool, plan.file, bytes]],",
    replace: "journaled(context, [],",
  },
  {
    name: "undo overwrites a file edited since",
    file: "src/files/restore.ts",
    find: "if (leftByRun(last, unfinished).includes(now)) return",
    replace: "if (true) return",
  },
  {
    name: "a run undone twice",
    file: "src/files/restore.ts",
    find: "const pending = groups.filter((changes) => !handled.has(changes[0]!.path));",
    replace: "const pending = groups;",
  },
  {
    name: "undo follows a link swapped in since",
    file: "src/files/restore.ts",
    find: "if (target.relative !== path) return skip(",
    replace: "if (false) return skip(",
  },
  {
    name: "undo trusts a tampered saved copy",
    file: "src/files/restore.ts",
    find: "if (!existsSync(saved) || digest(readFileSync(saved)) !== first.before.sha256) return skip(",
    replace: "if (!existsSync(saved)) return skip(",
  },
  {
    name: "forced undo keeps nothing",
    file: "src/files/restore.ts",
    find: "  copyFileSync(file.target!.real, copy);\n",
    replace: "",
  },
  {
    name: "wire log written after the request is sent",
    file: "src/model/logged-reply.ts",
    find: "  const seq = wire?.request(url, body) ?? 0;\n  const builder = new ReplyBuilder();\n  let timings: Record<string, unknown> | undefined;\n  try {\n    for await (const delta of deltas()) {\n",
    replace:
      "  let seq = 0;\n  const builder = new ReplyBuilder();\n  let timings: Record<string, unknown> | undefined;\n  try {\n    for await (const delta of deltas()) {\n      if (!seq) seq = wire?.request(url, body) ?? 0;\n",
  },
  {
    name: "event-log line written after the yield",
    file: "src/session/start-run.ts",
    find: "      if (!log.write(event)) event = onFullDisk(event, diskFull);\n      if (event.kind === \"todo\") writeSoftly(progressPath(root), () => writeProgress(root, { run_id: runId, updated_at: new Date(session.clock.now()).toISOString(), items: event.items as Progress[\"items\"] }));\n      yield event;\n",
    replace:
      "      if (event.kind === \"todo\") writeSoftly(progressPath(root), () => writeProgress(root, { run_id: runId, updated_at: new Date(session.clock.now()).toISOString(), items: event.items as Progress[\"items\"] }));\n      yield event;\n      log.write(event);\n",
  },
  {
    name: "no re-check of the stop signal after approval",
    file: "src/core/checkpoint.ts",
    find: "if (signal.aborted) return stopped(",
    replace: "if (false) return stopped(",
  },
  {
    name: "the approval modal's abort listener removed",
    file: "src/tui/approval-modal.ts",
    find: "request.signal.addEventListener(\"abort\", () => this.close(\"no\"), { once: true });",
    replace: "",
  },
  {
    name: "escaping dropped in the approval modal",
    file: "src/tui/approval-modal.ts",
    find: "? paint(DIFF_COLOR[line.kind]!, safeTagged(line.text)) : safeTagged(line.text)",
    replace: "? paint(DIFF_COLOR[line.kind]!, line.text) : line.text",
  },
  {
    name: "a wide character's second cell taken by the next one in the transcript",
    file: "src/tui/cell-writer.ts",
    find: "const content = text.replace(unicode.chars.all, \"$1\\x03\");",
    replace: "const content = text;",
  },
  {
    name: "transcript rows drawn without their voice's colours",
    file: "src/tui/panes/transcript-pane.ts",
    find: "row.text, this.voiceAttr(row.voice, fill), fill);",
    replace: "row.text, fill, fill);",
  },
  {
    name: "the terminal scrolls the transcript by a row too many",
    file: "src/tui/panes/transcript-pane.ts",
    find: "scrollRows(this.box.screen, moved, top, bottom);",
    replace: "scrollRows(this.box.screen, moved + 1, top, bottom);",
  },
  {
    name: "the terminal scrolls the transcript past half its rows beside the side column",
    file: "src/tui/panes/transcript-pane.ts",
    find: "return fullWidth || moved <= height / 2;",
    replace: "return true;",
  },
  {
    name: "rows scrolled into view keep what they showed before",
    file: "src/tui/cell-writer.ts",
    find: "      cell[0] = blankAttr;\n      cell[1] = \" \";\n",
    replace: "",
  },
  {
    name: "every cursor move at a row's start dropped",
    file: "src/tui/cell-writer.ts",
    find: "output.replace(/\\x1b\\[\\d+;1H(?=\\x1b\\[\\d+;\\d+H)/g, \"\")",
    replace: "output.replace(/\\x1b\\[\\d+;1H/g, \"\")",
  },
  {
    name: "short runs rewritten in other colours",
    file: "src/tui/cell-writer.ts",
    find: "same = line[i]![0] === before[0] && plainAscii(line[i]![1]);",
    replace: "same = plainAscii(line[i]![1]);",
  },
  {
    name: "a key's echo waits for the frame pace",
    file: "src/tui/render-scheduler.ts",
    find: "if (this.expedited && wait > 0 && this.quick === null) {",
    replace: "if (false) {",
  },
  {
    name: "a live reply's last words wait for the frame pace",
    file: "src/tui/run-control.ts",
    find: `this.effects.redraw(replayedAt === undefined && (event.kind === "model_done" || event.kind === "model_reply"));`,
    replace: `this.effects.redraw();`,
  },
  {
    name: "a reply's last words wait until it is assembled and logged",
    file: "src/tui/run-control.ts",
    find: `this.effects.redraw(replayedAt === undefined && (event.kind === "model_done" || event.kind === "model_reply"));`,
    replace: `this.effects.redraw(replayedAt === undefined && event.kind === "model_reply");`,
  },
  {
    name: "a replayed session drawn at once for every reply",
    file: "src/tui/run-control.ts",
    find: `this.effects.redraw(replayedAt === undefined && (event.kind === "model_done" || event.kind === "model_reply"));`,
    replace: `this.effects.redraw(event.kind === "model_done" || event.kind === "model_reply");`,
  },
  {
    name: "drawNow() leaves its frame for the event loop to write",
    file: "src/tui/render-scheduler.ts",
    find: "    this.run();\n    this.writeOut();\n",
    replace: "    this.run();\n",
  },
  {
    name: "writeNow writes nothing",
    file: "src/tui/screen.ts",
    find: "(screen.program as unknown as { flush(): void }).flush();",
    replace: "void screen;",
  },
  {
    name: "the screen is made inside tmux with TMUX in the environment (blessed runs `tmux -V`)",
    file: "src/tui/screen.ts",
    find: "  if (tmux === undefined) return make();\n  delete env.TMUX;\n",
    replace: "  if (tmux === undefined) return make();\n",
  },
  {
    name: "a screen made inside tmux forgets it is in tmux",
    file: "src/tui/screen.ts",
    find: "  screen.program.tmux = true;\n",
    replace: "",
  },
  {
    name: "drawNow() waits for the frame pace",
    file: "src/tui/render-scheduler.ts",
    find: "    if (this.pending !== null) this.timers.clear(this.pending);\n    this.run();\n    this.writeOut();\n  }",
    replace: "    this.request();\n  }",
  },
  {
    name: "a text chunk's usage read past",
    file: "src/model/llamacpp.ts",
    find: "if (!rest.endsWith(\"}\") || rest.includes('\"usage\"') || ",
    replace: "if (!rest.endsWith(\"}\") || ",
  },
  {
    name: "an escaped quote taken for the end of a chunk's text",
    file: "src/model/llamacpp.ts",
    find: "if (backslashes % 2 === 0) break;",
    replace: "break;",
  },
  {
    name: "a check not detached from the terminal's process group",
    file: "src/tools/checks.ts",
    find: "stdin: \"ignore\", stdout: \"pipe\", stderr: \"pipe\", detached: true });",
    replace: "stdin: \"ignore\", stdout: \"pipe\", stderr: \"pipe\", detached: false });",
  },
  {
    name: "stdin piped to a check",
    file: "src/tools/checks.ts",
    find: "stdin: \"ignore\", stdout: \"pipe\", stderr: \"pipe\", detached: true });",
    replace: "stdin: \"pipe\", stdout: \"pipe\", stderr: \"pipe\", detached: true });",
  },
  {
    name: "allow checked before deny",
    file: "src/core/policy.ts",
    find: "    const denied = this.deny.find((rule) => targets.some((one) => ruleMatches(rule, tool, one)));\n    if (denied) return { verdict: \"deny\", rule: denied.text };\n    const allowed = this.allow.find((rule) => targets.every((one) => ruleMatches(rule, tool, one)));\n    if (allowed) return { verdict: \"allow\", rule: allowed.text };\n",
    replace:
      "    const allowed = this.allow.find((rule) => targets.every((one) => ruleMatches(rule, tool, one)));\n    if (allowed) return { verdict: \"allow\", rule: allowed.text };\n    const denied = this.deny.find((rule) => targets.some((one) => ruleMatches(rule, tool, one)));\n    if (denied) return { verdict: \"deny\", rule: denied.text };\n",
  },
  {
    name: "needsApproval off for writes",
    file: "src/tools/write_file.ts",
    find: "  needsApproval: true,",
    replace: "  needsApproval: false,",
  },
  {
    name: "bwrap: secrets not hidden",
    file: "src/sandbox/bwrap.ts",
    find: "for (const { path, folder } of rules.hidden) {",
    replace: "for (const { path, folder } of [] as Confinement[\"hidden\"]) {",
  },
  {
    name: "bwrap: network namespace not unshared",
    file: "src/sandbox/bwrap.ts",
    find: "if (!rules.network) args.push(\"--unshare-net\");",
    replace: "",
  },
  {
    name: "bwrap: / writable",
    file: "src/sandbox/bwrap.ts",
    find: "args.push(\"--ro-bind\", \"/\", \"/\",",
    replace: "args.push(\"--bind\", \"/\", \"/\",",
  },
  {
    name: "bwrap: no PID namespace",
    file: "src/sandbox/bwrap.ts",
    find: "\"--die-with-parent\", \"--unshare-pid\"];",
    replace: "\"--die-with-parent\"];",
  },
  {
    name: "Landlock: secrets not hidden",
    file: "src/sandbox/landlock.ts",
    find: "const hidden = rules.hidden.map((entry) => entry.path);",
    replace: "const hidden: string[] = [];",
  },
  {
    name: "Landlock: network not handled",
    file: "src/sandbox/landlock.ts",
    find: "!rules.network && abi >= 4 ? NET_ALL : 0n",
    replace: "0n",
  },
  {
    name: "Landlock: writes allowed everywhere",
    file: "src/sandbox/landlock.ts",
    find: "grantAllBut(\"/\", READ_RIGHTS, hidden, out);",
    replace: "grantAllBut(\"/\", WRITE_RIGHTS, hidden, out);",
  },
  {
    name: "launcher: no subreaper",
    file: "src/sandbox/launcher.ts",
    find: "if (!becomeSubreaper()) {",
    replace: "if (false) {",
  },
  {
    name: "check output awaited without end",
    file: "src/tools/checks.ts",
    find: "const held = await Promise.race([reading.then(() => false), new Promise<boolean>((resolve) => (grace = setTimeout(() => resolve(true), OUTPUT_GRACE_MS)))]);",
    replace: "const held = await reading.then(() => false);",
  },
  {
    name: "Windows tree not killed with taskkill",
    file: "src/platform/process-tree.ts",
    find: "if (deps.platform === \"win32\") return deps.run([\"taskkill\", \"/T\", \"/F\", \"/PID\", String(pid)]);",
    replace: "",
  },
  {
    name: "approval skipped for MCP",
    file: "src/mcp/tool.ts",
    find: "needsApproval: true,",
    replace: "needsApproval: false,",
  },
  {
    name: "a bare mcp__* allow accepted",
    file: "src/core/policy.ts",
    find: "  if (!match) {\n    throw new Error(`rule \"${text}\" is not mcp__SERVER__TOOL",
    replace: "  if (!match) return { text, tool: text, glob: null };\n  if (false) {\n    throw new Error(`rule \"${text}\" is not mcp__SERVER__TOOL",
  },
  {
    name: "a schema that fails to compile skipped instead of refused",
    file: "src/mcp/schema.ts",
    find: "    throw new SchemaProblem(`its input schema does not compile",
    replace: "    validate = Object.assign(() => true, { errors: null }) as unknown as ValidateFunction;\n    if (false) throw new SchemaProblem(`its input schema does not compile",
  },
  {
    name: "MCP quarantine off",
    file: "src/mcp/hub.ts",
    find: "    if (this.approved.has(`${name}\\u0000${digest}`)) return null;",
    replace: "    return null;",
  },
  {
    name: "the full environment passed to an MCP server",
    file: "src/mcp/stdio-transport.ts",
    find: "env: serverEnvironment(this.server),",
    replace: "env: { ...process.env, ...serverEnvironment(this.server) },",
  },
  {
    name: "an MCP server's children outlive it",
    file: "src/mcp/stdio-transport.ts",
    find: '    process.kill(-pid, "SIGKILL");',
    replace: '    process.kill(pid, "SIGKILL");',
  },
  {
    name: "an untrusted workspace MCP server started",
    file: "src/mcp/hub.ts",
    find: "    if (entry.source !== \"workspace\") return true;",
    replace: "    return true;",
  },
  {
    name: "a shard given twice is merged",
    file: "src/eval/results.ts",
    find: "if (overlap) throw",
    replace: "if (false) throw",
  },
  {
    name: "folders of different task sets are merged",
    file: "src/eval/results.ts",
    find: "if (mismatch) throw",
    replace: "if (false) throw",
  },
  {
    name: "an attempt to leave the workspace passes its task",
    file: "src/eval/judge.ts",
    find: "filter((path) => outside(root, path))",
    replace: "filter(() => false)",
  },
  {
    name: "a session id opened as a path",
    file: "src/session/store.ts",
    find: "saved.find((session) => session.id === choice.session)",
    replace: "(existsSync(join(sessionsFolder(workspaceRoot), `${choice.session}.jsonl`)) ? readSession(join(sessionsFolder(workspaceRoot), `${choice.session}.jsonl`), choice.session!) : undefined)",
  },
  {
    name: "a damaged session line fails the whole session",
    file: "src/session/store.ts",
    find: "if (typeof line === \"string\") skipped.push(`line ${index + 1}: ${line}`);",
    replace: "if (typeof line === \"string\") throw new Error(line);",
  },
  {
    name: "session lines not validated",
    file: "src/session/store.ts",
    find: "const line = LineSchema.safeParse(json);",
    replace: "const line = { success: true as const, data: json as Line, error: LineSchema.safeParse(null).error! };",
  },
  {
    name: "a session line glued to one cut off by a crash",
    file: "src/session/store.ts",
    find: "appendFileSync(this.path, \"\\n\");",
    replace: "void 0;",
  },
  {
    name: "a restored session leaves tool calls unanswered",
    file: "src/session/store.ts",
    find: "for (const call of open) record.push(",
    replace: "for (const call of open.slice(open.length)) record.push(",
  },
  {
    name: "a restored session keeps tool results without their call",
    file: "src/session/store.ts",
    find: "      if (at === -1) {\n        dropped++;\n        continue;\n      }",
    replace: "      if (at === -1) {\n        record.push(message);\n        continue;\n      }",
  },
  {
    name: "a reply cut off mid-stream dropped from a restored session",
    file: "src/session/store.ts",
    find: "if (streamed) messages.push({ role: \"assistant\", content: streamed }), cutOff++;",
    replace: "if (streamed) cutOff++;",
  },
  {
    name: "--continue and --session both accepted",
    file: "src/session/store.ts",
    find: "if (choice.continue && choice.session !== undefined) throw",
    replace: "if (false) throw",
  },
  {
    name: "--demo continues a session",
    file: "src/cli/demo.ts",
    find: "if (args.continue || args.session !== undefined) throw",
    replace: "if (false) throw",
  },
];

/**
 * Each area's newer mutants live in scripts/mutants/AREA.ts (an exported MUTANTS list), so work on
 * one area never edits the same lines as work on another.
 */
const MUTANTS_DIR = join(import.meta.dir, "mutants");
export const MUTANTS: Mutant[] = [...CORE_MUTANTS];
for (const file of existsSync(MUTANTS_DIR) ? readdirSync(MUTANTS_DIR).filter((name) => name.endsWith(".ts")).sort() : []) {
  MUTANTS.push(...((await import(join(MUTANTS_DIR, file))) as { MUTANTS: Mutant[] }).MUTANTS);
}

const ROOT = join(import.meta.dir, "..");
const COPIED = ["src", "test", "workspace", "prompts", "scripts", "evals", "docs", ".github", ".ci", "package.json", "bunfig.toml", "tsconfig.json"];
/**
 * The guards live in src/; the compiled-binary tests only add minutes per mutant, so they run only
 * for mutants in src/tui, which only they can catch.
 */
/** `tmp`: the suite's own TMPDIR, removed with the copy: a bailed-out suite skips its afterAll clean-up (and the release it built is 750 MB). */
const suiteEnv = (mutant: Mutant | null, tmp: string) => ({ ...process.env, TMPDIR: tmp, GLASSBOX_SKIP_E2E: mutant?.file.startsWith("src/tui/") ? "0" : "1", GLASSBOX_MUTANT: mutant?.name ?? "" });

/** The file with the guard removed; throws when the guard text is gone or ambiguous. */
function mutatedText(mutant: Mutant, root: string): string {
  const text = readFileSync(join(root, mutant.file), "utf8");
  const count = text.split(mutant.find).length - 1;
  if (count !== 1) throw new Error(`mutant "${mutant.name}": the guard text occurs ${count} times in ${mutant.file}; update scripts/mutate.ts`);
  return text.replace(mutant.find, () => mutant.replace);
}

const SUITE_TIMEOUT_MS = 420_000;
/**
 * The unmutated baseline runs the whole suite without bailing, and a hang there proves nothing
 * about a guard: it gets three times a mutant's time (a busy machine stretches the suite).
 */
const BASELINE_TIMEOUT_MS = 3 * SUITE_TIMEOUT_MS;

interface MutantResult {
  failed: number;
  passed: number;
  seconds: number;
  hung: boolean;
  /** The tests that failed: which ones caught the mutant. */
  caughtBy: string[];
  /** The runner's whole output, for a baseline that does not pass. */
  output: string;
}

/** Every mutant starts from this snapshot, taken once: edits made while the check runs change nothing. */
let SNAPSHOT = ROOT;

/**
 * The tests nearest a mutated file, run first: its mirror folder under test/ (src/tools/x.ts →
 * test/tools), and the e2e tests for src/tui. Only when none of them fails does the whole suite
 * run, so a mutant counts as caught only when a test fails, and a caught one costs seconds.
 */
/**
 * The mutated file's own test file (src/model/openai.ts → test/model/openai.test.ts), tried before
 * its folder's: a folder of tests against a real server takes a minute, the file seconds.
 */
export function mirrorTest(file: string, exists: (path: string) => boolean = existsSync): string[] {
  const match = /^src\/(.+)\.ts$/.exec(file);
  const mirror = match ? `test/${match[1]}.test.ts` : null;
  return mirror && exists(join(ROOT, mirror)) ? [mirror] : [];
}

export function nearTests(file: string, exists: (path: string) => boolean = existsSync): string[] {
  const [top, folder] = file.split("/");
  const mirror = top === "src" ? `test/${folder}` : top === "scripts" ? "test/scripts" : null;
  const near = mirror && !mirror.endsWith(".ts") && exists(join(ROOT, mirror)) ? [mirror] : [];
  if (file.startsWith("src/tui/")) near.push("test/e2e");
  return near;
}

async function runMutant(mutant: Mutant | null): Promise<MutantResult> {
  const copy = mkdtempSync(join(tmpdir(), "glassbox-mutant-"));
  const tmp = mkdtempSync(join(tmpdir(), "glassbox-mutant-tmp-"));
  // The sandbox tests' unprivileged user uses TMPDIR as it would /tmp. It reads nothing in the
  // copy (they compile what it runs into TMPDIR), so the copy and the clone its node_modules
  // links to may stay private.
  chmodSync(tmp, 0o1777);
  try {
    for (const entry of COPIED) cpSync(join(SNAPSHOT, entry), join(copy, entry), { recursive: true });
    symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
    if (!mutant) return await runSuite(copy, tmp, mutant, [], false);
    writeFileSync(join(copy, mutant.file), mutatedText(mutant, copy));
    const started = performance.now();
    // Narrowest first: the mutated file's own test file, then its folder's, then the whole suite.
    const stages = [mutant.tests ?? [], mirrorTest(mutant.file), nearTests(mutant.file)].filter((paths) => paths.length);
    let result: MutantResult | null = null;
    for (const paths of stages) {
      result = await runSuite(copy, tmp, mutant, paths, true);
      if (result.failed > 0) break;
    }
    if (!result || result.failed === 0) result = await runSuite(copy, tmp, mutant, [], true);
    return { ...result, seconds: (performance.now() - started) / 1000 };
  } finally {
    rmSync(copy, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Kills every process a suite left behind: whatever names the suite's own TMPDIR in its command
 * line or its environment (an MCP server gets neither TMPDIR nor most of the environment, but
 * its test folder is in its arguments).
 */
function killLeftovers(tmp: string): void {
  if (!existsSync("/proc")) return; // Linux only; elsewhere they end with their timeouts
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8");
      if (cmdline.includes(tmp) || environ.split("\0").includes(`TMPDIR=${tmp}`)) process.kill(Number(entry), "SIGKILL");
    } catch {
      // ended meanwhile, or not ours to read
    }
  }
}

/** `bun test [PATHS]` in the copy; `bail`: stop at the first failure, all a mutant needs. */
async function runSuite(copy: string, tmp: string, mutant: Mutant | null, paths: string[], bail: boolean): Promise<MutantResult> {
  const started = performance.now();
  const child = Bun.spawn([process.execPath, "test", ...(bail ? ["--bail"] : []), ...paths.map((path) => `./${path}`)], { cwd: copy, env: suiteEnv(mutant, tmp), stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: true });
  // A removed guard can hang the suite (a FIFO opened, a check never killed): that counts as caught.
  let hung = false;
  const limitMs = mutant ? SUITE_TIMEOUT_MS : BASELINE_TIMEOUT_MS;
  const timer = setTimeout(() => {
    hung = true;
    process.kill(-child.pid, "SIGKILL");
  }, limitMs);
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  // A bailed-out or killed suite leaves its e2e tmux servers, and the binaries in them, running;
  // a mutant that removed a kill leaves the processes it should have killed.
  endE2eServers((owner) => owner === child.pid);
  killLeftovers(tmp);
  if (hung) return { failed: 1, passed: 0, seconds: limitMs / 1000, hung, caughtBy: [`(the suite hung: no end after ${limitMs / 1000} s)`], output: out + err };
  const summary = out + err;
  const caughtBy = [...new Set([...summary.matchAll(/^\(fail\) (.+?)(?: \[[\d.]+m?s\])?$/gm)].map((match) => match[1]!))];
  // The runner's closing lines, e.g. " 567 pass" and " 0 fail" alone on their lines (test names may
  // contain the words); a bailed-out run has none, and its exit code says it failed.
  const count = (word: string) => Number([...summary.matchAll(new RegExp(`^\\s*(\\d+) ${word}$`, "gm"))].at(-1)?.[1] ?? NaN);
  const failed = count("fail");
  const passed = count("pass") || 0;
  return { failed: Number.isNaN(failed) ? (child.exitCode === 0 ? 0 : 1) : failed, passed, seconds: (performance.now() - started) / 1000, hung, caughtBy, output: summary };
}

if (import.meta.main) {
  const only = process.argv.slice(2);
  const chosen = only.length ? MUTANTS.filter((mutant) => only.includes(mutant.name)) : MUTANTS;
  // Check every mutant still applies before spending minutes on the suite.
  for (const mutant of chosen) mutatedText(mutant, ROOT);
  SNAPSHOT = mkdtempSync(join(tmpdir(), "glassbox-mutant-snapshot-"));
  for (const entry of COPIED) cpSync(join(ROOT, entry), join(SNAPSHOT, entry), { recursive: true });
  process.on("exit", () => rmSync(SNAPSHOT, { recursive: true, force: true }));
  // A mutant only counts as caught if the untouched copy passes: a broken copy would "catch" everything.
  const baseline = await runMutant(null);
  if (baseline.failed > 0 || baseline.passed === 0) {
    console.log(`the unmutated copy does not pass (${baseline.failed} failing, ${baseline.passed} passing); fix the suite first`);
    for (const test of baseline.caughtBy) console.log(`  failing: ${test}`);
    const log = join(tmpdir(), "glassbox-mutate-baseline.log");
    writeFileSync(log, baseline.output);
    console.log(`the suite's output is in ${log}`);
    process.exit(1);
  }
  console.log(`baseline: ${baseline.passed} tests pass in ${baseline.seconds.toFixed(1)}s\n`);
  const parallel = Math.max(1, Math.min(2, availableParallelism()));
  const queue = [...chosen];
  const results: Array<MutantResult & { mutant: Mutant }> = [];
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let mutant = queue.shift(); mutant; mutant = queue.shift()) {
        const result = await runMutant(mutant);
        results.push({ mutant, ...result });
        const failing = result.hung ? "suite hung" : `${String(result.failed).padStart(3)} failing`;
        console.log(`${result.failed > 0 ? "caught  " : "SURVIVED"}  ${failing}  ${mutant.name}  (${result.seconds.toFixed(1)}s)`);
        for (const test of result.caughtBy.slice(0, 3)) console.log(`            by: ${test}`);
        if (result.caughtBy.length > 3) console.log(`            and ${result.caughtBy.length - 3} more`);
      }
    }),
  );
  // The table: each mutant and the first test that caught it, in the order of MUTANTS.
  console.log("\n| mutant | caught by |\n| --- | --- |");
  for (const mutant of chosen) {
    const result = results.find((entry) => entry.mutant === mutant)!;
    console.log(`| ${mutant.name} | ${result.failed > 0 ? (result.caughtBy[0] ?? `${result.failed} failing`) : "SURVIVED"} |`);
  }
  const survivors = results.filter((result) => result.failed === 0);
  console.log(`\n${results.length - survivors.length} of ${results.length} mutants caught`);
  if (survivors.length) {
    console.log(`survived: ${survivors.map((result) => result.mutant.name).join(", ")}`);
    process.exit(1);
  }
}
