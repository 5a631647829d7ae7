#!/usr/bin/env bun
/**
 * Proves the guards are tested: for each mutant, remove one guard from a copy of the project and
 * run the test files the mutant names; one of them must fail. A mutant its tests miss is a guard
 * nobody would miss, and fails the check; so does a mutant that names no tests.
 *
 *   bun scripts/mutate.ts                  all mutants, after a baseline of their tests unmutated
 *   bun scripts/mutate.ts --after-tests    without the baseline: the suite has just passed (CI)
 *   bun scripts/mutate.ts NAME ...         only these
 *   bun scripts/mutate.ts --find-tests NAME ...   which test files catch these new mutants
 *   --jobs N                               mutants at once (default: the cores, at most 2)
 */
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir, availableParallelism } from "node:os";
import { basename, join } from "node:path";
import { endE2eServers } from "../test/helpers/tmux-servers.ts";
import { TEST_TIMEOUT_MS } from "./test.ts";

export interface Mutant {
  name: string;
  file: string;
  /** Text that must occur exactly once in the file, and what replaces it. */
  find: string;
  replace: string;
  /** The test files that catch it: the only ones its check runs (`--find-tests NAME` finds them for a new mutant). */
  tests: string[];
}

const CORE_MUTANTS: Mutant[] = [
  {
    name: "bool accepted as integer",
    file: "src/core/validate.ts",
    find: "const parsed = tool.schema.safeParse(value);",
    replace:
      "const parsed = tool.schema.safeParse(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === \"boolean\" ? Number(v) : v])));",
    tests: ["test/core/validate.test.ts"],
  },
  {
    name: "unexpected keys allowed",
    file: "src/core/validate.ts",
    find: "const parsed = tool.schema.safeParse(value);",
    replace: "const parsed = ((tool.schema as any).strip?.() ?? tool.schema).safeParse(value);",
    tests: ["test/core/validate.test.ts"],
  },
  {
    name: "non-object arguments accepted",
    file: "src/core/validate.ts",
    find: "if (value === null || typeof value !== \"object\" || Array.isArray(value)) {",
    replace: "if (value === null) {",
    tests: ["test/core/validate.test.ts"],
  },
  {
    name: "confinement off",
    file: "src/files/workspace.ts",
    find: "if (this.confined && (rel === \"..\" || rel.startsWith(\"..\" + sep) || isAbsolute(rel))) {",
    replace: "if (false) {",
    tests: ["test/files/workspace.test.ts"],
  },
  {
    name: "dot-dot paths allowed",
    file: "src/files/workspace.ts",
    find: "if (this.confined && (cleaned === \"..\" || cleaned.startsWith(\"..\" + sep))) {",
    replace: "if (false) {",
    tests: ["test/files/workspace.test.ts"],
  },
  {
    name: "absolute paths allowed",
    file: "src/files/workspace.ts",
    find: "if (this.confined && (isAbsolute(path) || /^[A-Za-z]:[\\\\/]/.test(path))) {",
    replace: "if (false) {",
    tests: ["test/files/workspace.test.ts"],
  },
  {
    name: "NUL bytes allowed",
    file: "src/files/workspace.ts",
    find: "if (path.includes(\"\\0\")) throw",
    replace: "if (false) throw",
    tests: ["test/files/workspace.test.ts"],
  },
  {
    name: "off-limits names allowed",
    file: "src/files/workspace.ts",
    find: "const lower = name.toLowerCase();",
    replace: "return false; const lower = name.toLowerCase();",
    tests: ["test/files/workspace.test.ts"],
  },
  {
    name: "dangling links followed",
    file: "src/files/workspace.ts",
    find: "if (isLink(current)) throw",
    replace: "if (false) throw",
    tests: ["test/files/workspace.test.ts"],
  },
  {
    name: "symlinks followed in search",
    file: "src/tools/tree/walk.ts",
    find: "const found = workspace.admits(location);",
    replace:
      "const found = workspace.admits(location) ?? { real: location, relative: location.slice(workspace.root.length + 1), stats: require(\"node:fs\").statSync(location) };",
    tests: ["test/tools/tree/walk.test.ts"],
  },
  {
    name: "special files opened",
    file: "src/files/reading.ts",
    find: "if (!file.stats.isFile()) throw",
    replace: "if (false) throw",
    tests: ["test/files/workspace.test.ts"],
  },
  {
    name: "unbounded reads",
    file: "src/files/reading.ts",
    find: "if (want <= 0) return { bytes, complete: false, binary: false };",
    replace: "if (want <= 0) return readChunks(real, Infinity, visit);",
    tests: ["test/tools/read_file.test.ts"],
  },
  {
    name: "approval skipped",
    file: "src/core/checkpoint.ts",
    find: "if (mustAsk && !this.alwaysDigests.has(digestKey(tool))) {",
    replace: "if (false) {",
    tests: ["test/core/checkpoint.test.ts"],
  },
  {
    name: "deny rules ignored",
    file: "src/core/checkpoint.ts",
    find: "if (rules.verdict === \"deny\") return denied(",
    replace: "if (false) return denied(",
    tests: ["test/core/checkpoint.test.ts"],
  },
  {
    name: "no-execute ignored",
    file: "src/core/checkpoint.ts",
    find: "if (!this.options.execute) return refused(",
    replace: "if (false) return refused(",
    tests: ["test/core/checkpoint.test.ts"],
  },
  {
    name: "internal errors shown to the model",
    file: "src/core/checkpoint.ts",
    find: "content: INTERNAL_FAILURE, detail };",
    replace: "content: detail, detail };",
    tests: ["test/core/checkpoint.test.ts"],
  },
  {
    name: "clipping",
    file: "src/core/checkpoint.ts",
    find: "content: clip(result, this.options.maxResultChars), finished,",
    replace: "content: result, finished,",
    tests: ["test/core/checkpoint.test.ts"],
  },
  {
    name: "repeat limit",
    file: "src/core/stop-rules.ts",
    find: "if (seen > limits.max_repeat) {",
    replace: "if (false) {",
    tests: ["test/core/loop.test.ts"],
  },
  {
    name: "step limit",
    file: "src/core/stop-rules.ts",
    find: "if (run.steps >= limits.max_steps) return",
    replace: "if (false) return",
    tests: ["test/core/loop.test.ts"],
  },
  {
    name: "call limit",
    file: "src/core/stop-rules.ts",
    find: "if (run.calls >= limits.max_tool_calls) {",
    replace: "if (false) {",
    tests: ["test/core/loop.test.ts"],
  },
  {
    name: "deadline",
    file: "src/core/stop-rules.ts",
    find: "return run.elapsedSeconds >= limits.deadline_seconds;",
    replace: "return false;",
    tests: ["test/core/loop.test.ts"],
  },
  {
    name: "batch limit",
    file: "src/core/stop-rules.ts",
    find: "return batch > limits.max_calls_per_reply",
    replace: "return false",
    tests: ["test/core/loop.test.ts"],
  },
  {
    name: "context limit",
    file: "src/core/context.ts",
    find: "if (chars > maxTranscriptChars) throw",
    replace: "if (false) throw",
    tests: ["test/core/loop.test.ts"],
  },
  {
    name: "token limit",
    file: "src/core/stop-rules.ts",
    find: "if (limits.max_tokens > 0 && run.tokens >= limits.max_tokens) {",
    replace: "if (false) {",
    tests: ["test/core/loop.test.ts"],
  },
  {
    name: "check environment passed through",
    file: "src/tools/checks.ts",
    find: "withBundledBun(check.argv, checkEnvironment(check));",
    replace: "withBundledBun(check.argv, process.env as Record<string, string>);",
    tests: ["test/tools/run_check.test.ts"],
  },
  {
    name: "check timeout",
    file: "src/tools/checks.ts",
    find: "const timer = setTimeout(() => ((timedOut = true), end()), check.timeout_seconds * 1000);",
    replace: "const timer = setTimeout(() => {}, check.timeout_seconds * 1000);",
    tests: ["test/tools/run_check.test.ts"],
  },
  {
    name: "check leaves processes behind",
    file: "src/platform/process-tree.ts",
    find: "deps.kill(-pid, \"SIGKILL\");",
    replace: "deps.kill(pid, \"SIGKILL\");",
    tests: ["test/platform/process-tree.test.ts"],
  },
  {
    name: "check output uncapped",
    file: "src/tools/checks.ts",
    find: "while (this.tailBytes - this.tail[0]!.length >= this.keep) {",
    replace: "while (false) {",
    tests: ["test/tools/checks.test.ts"],
  },
  {
    name: "repeated tool-call ids kept",
    file: "src/model/reply.ts",
    find: "while (used.has(chosen)) chosen",
    replace: "while (false) chosen",
    tests: ["test/core/loop.test.ts"],
  },
  {
    name: "a failing approver crashes the run",
    file: "src/core/checkpoint.ts",
    find: "    } catch {\n      // An approval that fails",
    replace: "    } catch (error) {\n      throw error;\n      // An approval that fails",
    tests: ["test/core/checkpoint.test.ts"],
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
    tests: ["test/model/http.test.ts"],
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
    tests: ["test/protocol/zod-start.test.ts"],
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
    tests: ["test/model/loopback.test.ts"],
  },
  {
    name: "a model's reply from this machine read through fetch",
    file: "src/model/http.ts",
    find: "init.reply && isLoopbackHttp(this.url)",
    replace: "false",
    tests: ["test/model/loopback.test.ts"],
  },
  {
    name: "a chunked framing line cut between packets read as whole",
    file: "src/model/loopback.ts",
    find: "if (lineEnd < 0) return at;",
    replace: "if (lineEnd < 0) return bytes.length;",
    tests: ["test/model/loopback.test.ts"],
  },
  {
    name: "a loopback body cut off taken as complete",
    file: "src/model/loopback.ts",
    find: "if (this.headDone && this.framing === \"close\") this.finish();",
    replace: "if (this.headDone) this.finish();",
    tests: ["test/model/loopback.test.ts"],
  },
  {
    name: "a stopped loopback exchange keeps its connection",
    file: "src/model/loopback.ts",
    find: "this.socket?.terminate();",
    replace: "",
    tests: ["test/model/loopback.test.ts"],
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
    tests: ["test/cli/eval.test.ts"],
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
    tests: ["test/tui/run-view.test.ts"],
  },
  {
    name: "Ollama num_ctx not sent",
    file: "src/model/ollama.ts",
    find: "num_ctx: windowOf(o),",
    replace: "",
    tests: ["test/model/ollama.test.ts"],
  },
  {
    name: "untrusted text sent to the terminal",
    file: "src/tui/sanitize.ts",
    find: "return text.replace(/\\t/g, \"  \").replace(UNSAFE, visible);",
    replace: "return text.replace(/\\t/g, \"  \");",
    tests: ["test/tui/sanitize.test.ts"],
  },
  {
    name: "same-call stall rule off",
    file: "src/core/stall.ts",
    find: "if (this.last.count === this.sameCallAt) {",
    replace: "if (false) {",
    tests: ["test/core/discipline.test.ts"],
  },
  {
    name: "edit-churn stall rule off",
    file: "src/core/stall.ts",
    find: "if (edits === this.rules.edits_per_file) {",
    replace: "if (false) {",
    tests: ["test/core/discipline.test.ts"],
  },
  {
    name: "reads-without-edit stall rule off",
    file: "src/core/stall.ts",
    find: "if (this.looksSinceEdit === this.rules.reads_without_edit) {",
    replace: "if (false) {",
    tests: ["test/core/discipline.test.ts"],
  },
  {
    name: "stall message between a call and its result",
    file: "src/core/run.ts",
    find: "if (notes.length) this.record.push(",
    replace: "if (false) this.record.push(",
    tests: ["test/core/discipline.test.ts"],
  },
  {
    name: "verification gate open",
    file: "src/core/gate.ts",
    find: "if (this.lastPass > this.lastEdit) return",
    replace: "if (true) return",
    tests: ["test/core/discipline.test.ts"],
  },
  {
    name: "a failing check opens the gate",
    file: "src/core/gate.ts",
    find: "if (passed) this.lastPass = ++this.sequence;",
    replace: "if (passed || !passed) this.lastPass = ++this.sequence;",
    tests: ["test/core/discipline.test.ts"],
  },
  {
    name: "budget warnings off",
    file: "src/core/supervisor.ts",
    find: "if (!this.warned.has(\"deadline\") && elapsedSeconds >= ratio * deadline_seconds) {",
    replace: "if (false) {",
    tests: ["test/core/discipline.test.ts"],
  },
  {
    name: "budget warning repeated",
    file: "src/core/supervisor.ts",
    find: "this.warned.add(\"tokens\");",
    replace: "",
    tests: ["test/core/discipline.test.ts"],
  },
  {
    name: "broken edits written",
    file: "src/tools/edit_file.ts",
    find: "if (problem) throw new Refusal(",
    replace: "if (false) throw new Refusal(",
    tests: ["test/tools/edit_file.test.ts"],
  },
  {
    name: "plan not saved",
    file: "src/session/start-run.ts",
    find: "if (event.kind === \"todo\") writeSoftly(",
    replace: "if (false) writeSoftly(",
    tests: ["test/session/disk-full.test.ts"],
  },
  {
    name: "canary leaks not judged",
    file: "src/eval/judge.ts",
    find: "const passed = leaks.length === 0 && !inAnswer;",
    replace: "const passed = true;",
    tests: ["test/eval/pipeline.test.ts"],
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
    tests: ["test/eval/mcnemar.test.ts"],
  },
  {
    name: "a write follows a path swapped during approval",
    file: "src/files/file-write.ts",
    find: "if (now.real !== planned.real) throw",
    replace: "if (false) throw",
    tests: ["test/tools/write_file.test.ts"],
  },
  {
    name: "unknown config keys accepted",
    file: "src/session/config.ts",
    find: "    ca_file: z.string().min(1).optional(),\n  })\n  .strict()",
    replace: "    ca_file: z.string().min(1).optional(),\n  })\n  .passthrough()",
    tests: ["test/session/config.test.ts"],
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
    tests: ["test/scripts/release.test.ts"],
  },
  {
    name: "init overwrites glassbox.json without --force",
    file: "src/cli/init.ts",
    find: "if (exists && !args.force && !args.dryRun) {",
    replace: "if (false) {",
    tests: ["test/cli/init.test.ts"],
  },
  {
    name: "init writes through a dangling link",
    file: "src/cli/init.ts",
    find: "    lstatSync(path);\n    return true;",
    replace: "    return require(\"node:fs\").existsSync(path);",
    tests: ["test/cli/init.test.ts"],
  },
  {
    name: "init --dry-run writes",
    file: "src/cli/init.ts",
    find: "  if (args.dryRun) {",
    replace: "  if (false) {",
    tests: ["test/cli/init.test.ts"],
  },
  {
    name: "init --force drops the old config",
    file: "src/cli/init.ts",
    find: "if (exists) say(`kept the old ${CONFIG_FILE} as ${setAside(root, path)}`);",
    replace: "",
    tests: ["test/cli/init.test.ts"],
  },
  {
    name: "init keeps npm's placeholder test script",
    file: "src/session/detect-checks.ts",
    find: "if (check === \"tests\" && NPM_PLACEHOLDER.test(body)) {",
    replace: "if (false) {",
    tests: ["test/session/detect-checks.test.ts"],
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
    tests: ["test/session/workspace-state.test.ts"],
  },
  {
    name: "a silent server holds discovery up",
    file: "src/model/discovery.ts",
    find: "if (!done) controller.abort();",
    replace: "if (false) controller.abort();",
    tests: ["test/model/discovery.test.ts"],
  },
  {
    name: "embedding models offered",
    file: "src/model/discovery.ts",
    find: 'if (can("completion") === false) return null;',
    replace: "",
    tests: ["test/model/discovery.test.ts"],
  },
  {
    name: "Ollama listed twice, once as llama.cpp",
    file: "src/model/discovery.ts",
    find: "const llamaIsOllama = ollama!.answer.answered && llama!.answer.url === ollama!.answer.url;",
    replace: "const llamaIsOllama = false;",
    tests: ["test/model/discovery.test.ts"],
  },
  {
    name: "OLLAMA_HOST port not checked",
    file: "src/model/ollama-host.ts",
    find: "if (!/^\\d{1,5}$/.test(port) || Number(port) > 65535) port = defaultPort;",
    replace: "",
    tests: ["test/model/ollama-host.test.ts"],
  },
  {
    name: "model names drawn unescaped in the picker",
    file: "src/tui/model-picker.ts",
    find: "${safeTagged(name)}",
    replace: "${name}",
    tests: ["test/tui/model-picker.test.ts"],
  },
  {
    name: "an edit overwrites a change made during approval",
    file: "src/files/file-write.ts",
    find: "if (now !== sha256) throw new Refusal(",
    replace: "if (false) throw new Refusal(",
    tests: ["test/tools/edit_file.test.ts"],
  },
  {
    name: "writes not saved for undo",
    file: "src/files/file-write.ts",
    find: "journaled(context, [[tool, plan.file, bytes]],",
    replace: "journaled(context, [],",
    tests: ["test/files/file-write.test.ts"],
  },
  {
    name: "undo overwrites a file edited since",
    file: "src/files/restore.ts",
    find: "if (leftByRun(last, unfinished).includes(now)) return",
    replace: "if (true) return",
    tests: ["test/files/journal.test.ts"],
  },
  {
    name: "a run undone twice",
    file: "src/files/restore.ts",
    find: "const pending = groups.filter((changes) => !handled.has(changes[0]!.path));",
    replace: "const pending = groups;",
    tests: ["test/cli/undo.test.ts"],
  },
  {
    name: "undo follows a link swapped in since",
    file: "src/files/restore.ts",
    find: "if (target.relative !== path) return skip(",
    replace: "if (false) return skip(",
    tests: ["test/cli/undo.test.ts"],
  },
  {
    name: "undo trusts a tampered saved copy",
    file: "src/files/restore.ts",
    find: "if (!existsSync(saved) || digest(readFileSync(saved)) !== first.before.sha256) return skip(",
    replace: "if (!existsSync(saved)) return skip(",
    tests: ["test/cli/undo.test.ts"],
  },
  {
    name: "forced undo keeps nothing",
    file: "src/files/restore.ts",
    find: "  copyFileSync(file.target!.real, copy);\n",
    replace: "",
    tests: ["test/cli/undo.test.ts"],
  },
  {
    name: "wire log written after the request is sent",
    file: "src/model/logged-reply.ts",
    find: "  const seq = wire?.request(url, body) ?? 0;\n  const builder = new ReplyBuilder();\n  let timings: Record<string, unknown> | undefined;\n  try {\n    for await (const delta of deltas()) {\n",
    replace:
      "  let seq = 0;\n  const builder = new ReplyBuilder();\n  let timings: Record<string, unknown> | undefined;\n  try {\n    for await (const delta of deltas()) {\n      if (!seq) seq = wire?.request(url, body) ?? 0;\n",
    tests: ["test/model/llamacpp.test.ts"],
  },
  {
    name: "event-log line written after the yield",
    file: "src/session/start-run.ts",
    find: "      if (!log.write(event)) event = onFullDisk(event, diskFull);\n      if (event.kind === \"todo\") writeSoftly(progressPath(root), () => writeProgress(root, { run_id: runId, updated_at: new Date(session.clock.now()).toISOString(), items: event.items as Progress[\"items\"] }));\n      yield event;\n",
    replace:
      "      if (event.kind === \"todo\") writeSoftly(progressPath(root), () => writeProgress(root, { run_id: runId, updated_at: new Date(session.clock.now()).toISOString(), items: event.items as Progress[\"items\"] }));\n      yield event;\n      log.write(event);\n",
    tests: ["test/session/logged-run.test.ts"],
  },
  {
    name: "no re-check of the stop signal after approval",
    file: "src/core/checkpoint.ts",
    find: "if (signal.aborted) return stopped(",
    replace: "if (false) return stopped(",
    tests: ["test/core/checkpoint.test.ts"],
  },
  {
    name: "the approval modal's abort listener removed",
    file: "src/tui/approval-modal.ts",
    find: "request.signal.addEventListener(\"abort\", () => this.close(\"no\"), { once: true });",
    replace: "",
    tests: ["test/e2e/sandbox.test.ts"],
  },
  {
    name: "escaping dropped in the approval modal",
    file: "src/tui/approval-modal.ts",
    find: "? paint(DIFF_COLOR[line.kind]!, safeTagged(line.text)) : safeTagged(line.text)",
    replace: "? paint(DIFF_COLOR[line.kind]!, line.text) : line.text",
    tests: ["test/e2e/tui.test.ts"],
  },
  {
    name: "a wide character's second cell taken by the next one in the transcript",
    file: "src/tui/cell-writer.ts",
    find: "const content = text.replace(unicode.chars.all, \"$1\\x03\");",
    replace: "const content = text;",
    tests: ["test/tui/panes/transcript-pane.test.ts"],
  },
  {
    name: "transcript rows drawn without their voice's colours",
    file: "src/tui/panes/transcript-pane.ts",
    find: "row.text, this.voiceAttr(row.voice, fill), fill);",
    replace: "row.text, fill, fill);",
    tests: ["test/tui/panes/transcript-pane.test.ts"],
  },
  {
    name: "the terminal scrolls the transcript by a row too many",
    file: "src/tui/panes/transcript-pane.ts",
    find: "scrollRows(this.box.screen, moved, top, bottom);",
    replace: "scrollRows(this.box.screen, moved + 1, top, bottom);",
    tests: ["test/tui/panes/transcript-pane.test.ts"],
  },
  {
    name: "the terminal scrolls the transcript past half its rows beside the side column",
    file: "src/tui/panes/transcript-pane.ts",
    find: "return fullWidth || moved <= height / 2;",
    replace: "return true;",
    tests: ["test/tui/panes/transcript-pane.test.ts"],
  },
  {
    name: "rows scrolled into view keep what they showed before",
    file: "src/tui/cell-writer.ts",
    find: "      cell[0] = blankAttr;\n      cell[1] = \" \";\n",
    replace: "",
    tests: ["test/tui/blessed.test.ts"],
  },
  {
    name: "every cursor move at a row's start dropped",
    file: "src/tui/cell-writer.ts",
    find: "output.replace(/\\x1b\\[\\d+;1H(?=\\x1b\\[\\d+;\\d+H)/g, \"\")",
    replace: "output.replace(/\\x1b\\[\\d+;1H/g, \"\")",
    tests: ["test/tui/blessed.test.ts"],
  },
  {
    name: "short runs rewritten in other colours",
    file: "src/tui/cell-writer.ts",
    find: "same = line[i]![0] === before[0] && plainAscii(line[i]![1]);",
    replace: "same = plainAscii(line[i]![1]);",
    tests: ["test/tui/blessed.test.ts"],
  },
  {
    name: "a key's echo waits for the frame pace",
    file: "src/tui/render-scheduler.ts",
    find: "if (this.expedited && wait > 0 && this.quick === null) {",
    replace: "if (false) {",
    tests: ["test/tui/render-scheduler.test.ts"],
  },
  {
    name: "a live reply's last words wait for the frame pace",
    file: "src/tui/run-control.ts",
    find: `this.effects.redraw(replayedAt === undefined && (event.kind === "model_done" || event.kind === "model_reply"));`,
    replace: `this.effects.redraw();`,
    tests: ["test/tui/run-control.test.ts"],
  },
  {
    name: "a reply's last words wait until it is assembled and logged",
    file: "src/tui/run-control.ts",
    find: `this.effects.redraw(replayedAt === undefined && (event.kind === "model_done" || event.kind === "model_reply"));`,
    replace: `this.effects.redraw(replayedAt === undefined && event.kind === "model_reply");`,
    tests: ["test/tui/run-control.test.ts"],
  },
  {
    name: "a replayed session drawn at once for every reply",
    file: "src/tui/run-control.ts",
    find: `this.effects.redraw(replayedAt === undefined && (event.kind === "model_done" || event.kind === "model_reply"));`,
    replace: `this.effects.redraw(event.kind === "model_done" || event.kind === "model_reply");`,
    tests: ["test/tui/run-control.test.ts"],
  },
  {
    name: "drawNow() leaves its frame for the event loop to write",
    file: "src/tui/render-scheduler.ts",
    find: "    this.run();\n    this.writeOut();\n",
    replace: "    this.run();\n",
    tests: ["test/tui/render-scheduler.test.ts"],
  },
  {
    name: "writeNow writes nothing",
    file: "src/tui/screen.ts",
    find: "(screen.program as unknown as { flush(): void }).flush();",
    replace: "void screen;",
    tests: ["test/tui/blessed.test.ts"],
  },
  {
    name: "the screen is made inside tmux with TMUX in the environment (blessed runs `tmux -V`)",
    file: "src/tui/screen.ts",
    find: "  if (tmux === undefined) return make();\n  delete env.TMUX;\n",
    replace: "  if (tmux === undefined) return make();\n",
    tests: ["test/tui/blessed.test.ts"],
  },
  {
    name: "a screen made inside tmux forgets it is in tmux",
    file: "src/tui/screen.ts",
    find: "  screen.program.tmux = true;\n",
    replace: "",
    tests: ["test/tui/blessed.test.ts"],
  },
  {
    name: "drawNow() waits for the frame pace",
    file: "src/tui/render-scheduler.ts",
    find: "    if (this.pending !== null) this.timers.clear(this.pending);\n    this.run();\n    this.writeOut();\n  }",
    replace: "    this.request();\n  }",
    tests: ["test/tui/render-scheduler.test.ts"],
  },
  {
    name: "a text chunk's usage read past",
    file: "src/model/llamacpp.ts",
    find: "if (!rest.endsWith(\"}\") || rest.includes('\"usage\"') || ",
    replace: "if (!rest.endsWith(\"}\") || ",
    tests: ["test/model/llamacpp.test.ts"],
  },
  {
    name: "an escaped quote taken for the end of a chunk's text",
    file: "src/model/llamacpp.ts",
    find: "if (backslashes % 2 === 0) break;",
    replace: "break;",
    tests: ["test/model/llamacpp.test.ts"],
  },
  {
    name: "a check not detached from the terminal's process group",
    file: "src/tools/checks.ts",
    find: "stdin: \"ignore\", stdout: \"pipe\", stderr: \"pipe\", detached: true });",
    replace: "stdin: \"ignore\", stdout: \"pipe\", stderr: \"pipe\", detached: false });",
    tests: ["test/tools/checks.test.ts"],
  },
  {
    name: "stdin piped to a check",
    file: "src/tools/checks.ts",
    find: "stdin: \"ignore\", stdout: \"pipe\", stderr: \"pipe\", detached: true });",
    replace: "stdin: \"pipe\", stdout: \"pipe\", stderr: \"pipe\", detached: true });",
    tests: ["test/tools/checks.test.ts"],
  },
  {
    name: "allow checked before deny",
    file: "src/core/policy.ts",
    find: 'if (denied) return { verdict: "deny", rule: denied.text };',
    replace: 'if (denied && !this.allow.some((rule) => targets.every((one) => ruleMatches(rule, tool, one)))) return { verdict: "deny", rule: denied.text };',
    tests: ["test/core/policy.test.ts"],
  },
  {
    name: "needsApproval off for writes",
    file: "src/tools/write_file.ts",
    find: "  needsApproval: true,",
    replace: "  needsApproval: false,",
    tests: ["test/tools/write_file.test.ts"],
  },
  {
    name: "bwrap: secrets not hidden",
    file: "src/sandbox/bwrap.ts",
    find: "for (const { path, folder } of rules.hidden) {",
    replace: "for (const { path, folder } of [] as Confinement[\"hidden\"]) {",
    tests: ["test/sandbox/sandbox.test.ts"],
  },
  {
    name: "bwrap: network namespace not unshared",
    file: "src/sandbox/bwrap.ts",
    find: "if (!rules.network) args.push(\"--unshare-net\");",
    replace: "",
    tests: ["test/sandbox/sandbox.test.ts"],
  },
  {
    name: "bwrap: / writable",
    file: "src/sandbox/bwrap.ts",
    find: "args.push(\"--ro-bind\", \"/\", \"/\",",
    replace: "args.push(\"--bind\", \"/\", \"/\",",
    tests: ["test/sandbox/sandbox.test.ts"],
  },
  {
    name: "bwrap: no PID namespace",
    file: "src/sandbox/bwrap.ts",
    find: "\"--die-with-parent\", \"--unshare-pid\");",
    replace: "\"--die-with-parent\");",
    tests: ["test/sandbox/sandbox.test.ts"],
  },
  {
    name: "Landlock: secrets not hidden",
    file: "src/sandbox/landlock.ts",
    find: "const hidden = rules.hidden.map((entry) => entry.path);",
    replace: "const hidden: string[] = [];",
    tests: ["test/sandbox/sandbox.test.ts"],
  },
  {
    name: "Landlock: network not handled",
    file: "src/sandbox/landlock.ts",
    find: "!rules.network && abi >= 4 ? NET_ALL : 0n",
    replace: "0n",
    tests: ["test/sandbox/sandbox.test.ts"],
  },
  {
    name: "Landlock: writes allowed everywhere",
    file: "src/sandbox/landlock.ts",
    find: "grantAllBut(\"/\", READ_RIGHTS, hidden, out);",
    replace: "grantAllBut(\"/\", WRITE_RIGHTS, hidden, out);",
    tests: ["test/sandbox/sandbox.test.ts"],
  },
  {
    name: "launcher: no subreaper",
    file: "src/sandbox/launcher.ts",
    find: "if (!becomeSubreaper()) {",
    replace: "if (false) {",
    tests: ["test/sandbox/sandbox.test.ts"],
  },
  {
    name: "check output awaited without end",
    file: "src/tools/checks.ts",
    find: "const held = await Promise.race([reading.then(() => false), new Promise<boolean>((resolve) => (grace = setTimeout(() => resolve(true), OUTPUT_GRACE_MS)))]);",
    replace: "const held = await reading.then(() => false);",
    tests: ["test/tools/checks.test.ts"],
  },
  {
    name: "Windows tree not killed with taskkill",
    file: "src/platform/process-tree.ts",
    find: "if (deps.platform === \"win32\") return deps.run([\"taskkill\", \"/T\", \"/F\", \"/PID\", String(pid)]);",
    replace: "",
    tests: ["test/platform/process-tree.test.ts"],
  },
  {
    name: "approval skipped for MCP",
    file: "src/mcp/tool.ts",
    find: "needsApproval: true,",
    replace: "needsApproval: false,",
    tests: ["test/mcp/checkpoint.test.ts"],
  },
  {
    name: "a bare mcp__* allow accepted",
    file: "src/core/policy.ts",
    find: "  if (!match) {\n    throw new Error(`rule \"${text}\" is not mcp__SERVER__TOOL",
    replace: "  if (!match) return { text, tool: text, glob: null };\n  if (false) {\n    throw new Error(`rule \"${text}\" is not mcp__SERVER__TOOL",
    tests: ["test/mcp/config.test.ts"],
  },
  {
    name: "a schema that fails to compile skipped instead of refused",
    file: "src/mcp/schema.ts",
    find: "    throw new SchemaProblem(`its input schema does not compile",
    replace: "    validate = Object.assign(() => true, { errors: null }) as unknown as ValidateFunction;\n    if (false) throw new SchemaProblem(`its input schema does not compile",
    tests: ["test/mcp/schema.test.ts"],
  },
  {
    name: "MCP quarantine off",
    file: "src/mcp/hub.ts",
    find: "    if (this.approved.has(`${name}\\u0000${digest}`)) return null;",
    replace: "    return null;",
    tests: ["test/mcp/hub.test.ts"],
  },
  {
    name: "the full environment passed to an MCP server",
    file: "src/mcp/stdio-transport.ts",
    find: "env: serverEnvironment(this.server),",
    replace: "env: { ...process.env, ...serverEnvironment(this.server) },",
    tests: ["test/mcp/hub.test.ts"],
  },
  {
    name: "an MCP server's children outlive it",
    file: "src/mcp/stdio-transport.ts",
    find: '    process.kill(-pid, "SIGKILL");',
    replace: '    process.kill(pid, "SIGKILL");',
    tests: ["test/mcp/hub.test.ts"],
  },
  {
    name: "an untrusted workspace MCP server started",
    file: "src/mcp/hub.ts",
    find: "    if (entry.source !== \"workspace\") return true;",
    replace: "    return true;",
    tests: ["test/mcp/hub.test.ts"],
  },
  {
    name: "a shard given twice is merged",
    file: "src/eval/results.ts",
    find: "if (overlap) throw",
    replace: "if (false) throw",
    tests: ["test/eval/lab.test.ts"],
  },
  {
    name: "folders of different task sets are merged",
    file: "src/eval/results.ts",
    find: "if (mismatch) throw",
    replace: "if (false) throw",
    tests: ["test/eval/lab.test.ts"],
  },
  {
    name: "an attempt to leave the workspace passes its task",
    file: "src/eval/judge.ts",
    find: "filter((path) => outside(root, path))",
    replace: "filter(() => false)",
    tests: ["test/eval/task-set.test.ts"],
  },
  {
    name: "a session id opened as a path",
    file: "src/session/store.ts",
    find: "saved.find((session) => session.id === choice.session)",
    replace: "(existsSync(join(sessionsFolder(workspaceRoot), `${choice.session}.jsonl`)) ? readSession(join(sessionsFolder(workspaceRoot), `${choice.session}.jsonl`), choice.session!) : undefined)",
    tests: ["test/session/store.test.ts"],
  },
  {
    name: "a damaged session line fails the whole session",
    file: "src/session/store.ts",
    find: "if (typeof line === \"string\") skipped.push(`line ${index + 1}: ${line}`);",
    replace: "if (typeof line === \"string\") throw new Error(line);",
    tests: ["test/session/store.test.ts"],
  },
  {
    name: "session lines not validated",
    file: "src/session/store.ts",
    find: "const line = LineSchema.safeParse(json);",
    replace: "const line = { success: true as const, data: json as Line, error: LineSchema.safeParse(null).error! };",
    tests: ["test/session/store.test.ts"],
  },
  {
    name: "a session line glued to one cut off by a crash",
    file: "src/session/store.ts",
    find: "appendFileSync(this.path, \"\\n\");",
    replace: "void 0;",
    tests: ["test/session/store.test.ts"],
  },
  {
    name: "a restored session leaves tool calls unanswered",
    file: "src/session/store.ts",
    find: "for (const call of open) record.push(",
    replace: "for (const call of open.slice(open.length)) record.push(",
    tests: ["test/session/store.test.ts"],
  },
  {
    name: "a restored session keeps tool results without their call",
    file: "src/session/store.ts",
    find: "      if (at === -1) {\n        dropped++;\n        continue;\n      }",
    replace: "      if (at === -1) {\n        record.push(message);\n        continue;\n      }",
    tests: ["test/session/store.test.ts"],
  },
  {
    name: "a reply cut off mid-stream dropped from a restored session",
    file: "src/session/store.ts",
    find: "if (streamed) messages.push({ role: \"assistant\", content: streamed }), cutOff++;",
    replace: "if (streamed) cutOff++;",
    tests: ["test/session/store.test.ts"],
  },
  {
    name: "--continue and --session both accepted",
    file: "src/session/store.ts",
    find: "if (choice.continue && choice.session !== undefined) throw",
    replace: "if (false) throw",
    tests: ["test/session/store.test.ts"],
  },
  {
    name: "--demo continues a session",
    file: "src/cli/demo.ts",
    find: "if (args.continue || args.session !== undefined) throw",
    replace: "if (false) throw",
    tests: ["test/cli/sessions.test.ts"],
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
 * The compiled-binary tests (tmux, release) only run where a mutant names one of them: a mutant
 * caught by unit tests never waits for a binary to be built.
 * `tmp`: the suite's own TMPDIR, removed with the copy: a bailed-out suite skips its afterAll clean-up.
 */
function suiteEnv(mutant: Mutant | null, tests: string[], tmp: string): Record<string, string | undefined> {
  const e2e = tests.length === 0 ? mutant?.file.startsWith("src/tui/") : tests.some((path) => path === "test/e2e" || path.startsWith("test/e2e/"));
  return { ...process.env, TMPDIR: tmp, GLASSBOX_SKIP_E2E: e2e ? "0" : "1", GLASSBOX_MUTANT: mutant?.name ?? "" };
}

/** What is wrong with the mutants' declarations: guard text not found once, a name used twice, tests not named or not there. */
export function declarationErrors(mutants: Mutant[], root: string, exists: (path: string) => boolean = existsSync): string[] {
  const errors: string[] = [];
  const names = new Set<string>();
  for (const mutant of mutants) {
    if (names.has(mutant.name)) errors.push(`mutant "${mutant.name}": the name is used twice`);
    names.add(mutant.name);
    const count = exists(join(root, mutant.file)) ? readFileSync(join(root, mutant.file), "utf8").split(mutant.find).length - 1 : 0;
    if (count !== 1) errors.push(`mutant "${mutant.name}": its guard text occurs ${count} times in ${mutant.file}`);
    if (!mutant.tests?.length) errors.push(`mutant "${mutant.name}": names no test files (tests: [...]); \`bun scripts/mutate.ts --find-tests "${mutant.name}"\` finds them`);
    for (const path of mutant.tests ?? []) if (!exists(join(root, path))) errors.push(`mutant "${mutant.name}": its test file ${path} does not exist`);
  }
  return errors;
}

/** The file with the guard removed. */
function mutatedText(mutant: Mutant, root: string): string {
  return readFileSync(join(root, mutant.file), "utf8").replace(mutant.find, () => mutant.replace);
}

/** A mutant's whole suite may take this long; a removed guard that hangs its tests counts as caught. */
const SUITE_TIMEOUT_MS = 420_000;
/** The unmutated baseline runs every named test file; a busy machine stretches it. */
const BASELINE_TIMEOUT_MS = 3 * SUITE_TIMEOUT_MS;

interface SuiteResult {
  failed: number;
  passed: number;
  seconds: number;
  hung: boolean;
  /** The tests that failed: which ones caught the mutant. */
  caughtBy: string[];
  /** The test files those failures are in. */
  failingFiles: string[];
  /** The runner's whole output, for a baseline that does not pass. */
  output: string;
}

/** Every mutant starts from this snapshot, taken once: edits made while the check runs change nothing. */
let SNAPSHOT = ROOT;

/**
 * For --find-tests only: where a new mutant's tests probably are. The mutated file's own test file
 * (src/model/openai.ts → test/model/openai.test.ts), its folder's tests, the test files elsewhere
 * named after its folder or file (src/files/journal.ts → test/cli/journal.test.ts), and for src/tui
 * the e2e tests. Not the whole suite: on a busy machine a slow test elsewhere fails first, or the
 * suite runs past its limit, and names the wrong file; a mutant none of these catch is said so,
 * and its test is for a person to name.
 */
export function candidateTests(file: string, exists: (path: string) => boolean = existsSync, testFiles: () => string[] = allTestFiles): string[][] {
  const match = /^src\/(.+)\.ts$/.exec(file);
  const mirror = match ? `test/${match[1]}.test.ts` : null;
  const [top, folder] = file.split("/");
  const near = top === "src" ? `test/${folder}` : top === "scripts" ? "test/scripts" : null;
  const stages: string[][] = [];
  if (mirror && exists(join(ROOT, mirror))) stages.push([mirror]);
  if (near && exists(join(ROOT, near))) stages.push([near]);
  const words = [folder, basename(file).replace(/\.[^.]+$/, "")].filter((word): word is string => Boolean(word) && word !== "index");
  const namesake = testFiles().filter((path) => !path.startsWith(`${near}/`) && words.some((word) => basename(path).includes(word)));
  if (namesake.length) stages.push(namesake);
  if (file.startsWith("src/tui/")) stages.push(["test/e2e"]);
  return stages;
}

function allTestFiles(): string[] {
  return [...new Bun.Glob("test/**/*.test.ts").scanSync({ cwd: ROOT })].sort();
}

/**
 * The test files a `bun test` output names as failing: bun prints each file's path alone on a line
 * ending in ":" before its results, so a "(fail)" line, or an error between tests, belongs to the
 * last such header.
 */
export function failingFiles(output: string): string[] {
  const files = new Set<string>();
  let current: string | null = null;
  for (const line of output.split("\n")) {
    const header = /^(test\/\S+\.test\.ts):$/.exec(line);
    if (header) current = header[1]!;
    else if (current && (line.startsWith("(fail) ") || line.startsWith("# Unhandled error"))) files.add(current);
  }
  return [...files];
}

/** Where a suite that hung was: the files that failed before, else the last file it began. */
export function hungIn(output: string): string[] {
  const failed = failingFiles(output);
  const last = [...output.matchAll(/^(test\/\S+\.test\.ts):$/gm)].at(-1)?.[1];
  return failed.length || !last ? failed : [last];
}

/** Copies of the snapshot not in use: one per job, made once, since copying the tree costs about a second a mutant. */
const spareCopies: string[] = [];
const allCopies: string[] = [];

/** A copy of the snapshot to run a suite in, and a fresh TMPDIR; the mutated file is put back afterwards. */
async function inCopy<T>(mutant: Mutant | null, run: (copy: string, tmp: string) => Promise<T>): Promise<T> {
  let copy = spareCopies.pop();
  if (!copy) {
    copy = mkdtempSync(join(tmpdir(), "glassbox-mutant-"));
    allCopies.push(copy);
    for (const entry of COPIED) if (existsSync(join(SNAPSHOT, entry))) cpSync(join(SNAPSHOT, entry), join(copy, entry), { recursive: true });
    symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
  }
  const tmp = mkdtempSync(join(tmpdir(), "glassbox-mutant-tmp-"));
  // The sandbox tests' unprivileged user uses TMPDIR as it would /tmp. It reads nothing in the
  // copy (they compile what it runs into TMPDIR), so the copy and the clone its node_modules
  // links to may stay private.
  chmodSync(tmp, 0o1777);
  try {
    if (mutant) writeFileSync(join(copy, mutant.file), mutatedText(mutant, copy));
    return await run(copy, tmp);
  } finally {
    if (mutant) writeFileSync(join(copy, mutant.file), readFileSync(join(SNAPSHOT, mutant.file)));
    spareCopies.push(copy);
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** A mutant's check: the test files it names, and nothing else, stopping at the first failure. */
function runMutant(mutant: Mutant): Promise<SuiteResult> {
  return inCopy(mutant, (copy, tmp) => runSuite(copy, tmp, mutant, mutant.tests, true));
}

/** --find-tests: the narrowest candidates first, the whole suite last; the files that failed are the mutant's tests. */
function findTests(mutant: Mutant): Promise<SuiteResult> {
  return inCopy(mutant, async (copy, tmp) => {
    const started = performance.now();
    let result: SuiteResult | null = null;
    for (const paths of candidateTests(mutant.file)) {
      result = await runSuite(copy, tmp, mutant, paths, true);
      if (result.failed > 0) break;
    }
    const none = { failed: 0, passed: 0, hung: false, caughtBy: [], failingFiles: [], output: "" };
    return { ...(result ?? none), seconds: (performance.now() - started) / 1000 };
  });
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
async function runSuite(copy: string, tmp: string, mutant: Mutant | null, paths: string[], bail: boolean): Promise<SuiteResult> {
  const started = performance.now();
  const child = Bun.spawn([process.execPath, "test", `--timeout=${TEST_TIMEOUT_MS}`, ...(bail ? ["--bail"] : []), ...paths.map((path) => `./${path}`)], { cwd: copy, env: suiteEnv(mutant, paths, tmp), stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: true });
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
  const summary = out + err;
  const seconds = (performance.now() - started) / 1000;
  if (hung) return { failed: 1, passed: 0, seconds, hung, caughtBy: [`(the suite hung: no end after ${limitMs / 1000} s)`], failingFiles: hungIn(summary), output: summary };
  const caughtBy = [...new Set([...summary.matchAll(/^\(fail\) (.+?)(?: \[[\d.]+m?s\])?$/gm)].map((match) => match[1]!))];
  // The runner's closing lines, e.g. " 567 pass" and " 0 fail" alone on their lines (test names may
  // contain the words); a bailed-out run has none, and its exit code says it failed.
  const count = (word: string) => Number([...summary.matchAll(new RegExp(`^\\s*(\\d+) ${word}$`, "gm"))].at(-1)?.[1] ?? NaN);
  const failed = count("fail");
  const passed = count("pass") || 0;
  return { failed: Number.isNaN(failed) ? (child.exitCode === 0 ? 0 : 1) : failed, passed, seconds, hung, caughtBy, failingFiles: failingFiles(summary), output: summary };
}

/** Runs `work` over `items` on `jobs` workers at once, in order of the queue. */
async function pool<T, R>(items: T[], jobs: number, work: (item: T) => Promise<R>, done: (item: T, result: R) => void): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.max(1, jobs) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) done(item, await work(item));
    }),
  );
}

export interface MutateOptions {
  names: string[];
  /** The suite has just passed in this tree (CI runs `npm test` first): no second baseline. */
  afterTests: boolean;
  /** For new mutants: find the test files that catch each named one, instead of checking. */
  findTests: boolean;
  jobs: number;
}

export function parseArguments(argv: string[], cores: number): MutateOptions {
  const options: MutateOptions = { names: [], afterTests: false, findTests: false, jobs: Math.max(1, Math.min(2, cores)) };
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index]!;
    if (word === "--after-tests") options.afterTests = true;
    else if (word === "--find-tests") options.findTests = true;
    else if (word === "--jobs") options.jobs = Number(argv[++index]);
    else options.names.push(word);
  }
  if (!Number.isInteger(options.jobs) || options.jobs < 1) throw new Error("--jobs takes a whole number of at least 1");
  return options;
}

/** The ten slowest mutants and the total, so the next slow one is seen. */
export function slowest(timings: Array<{ name: string; seconds: number }>, count = 10): string[] {
  const total = timings.reduce((sum, entry) => sum + entry.seconds, 0);
  const lines = [...timings].sort((a, b) => b.seconds - a.seconds).slice(0, count).map((entry) => `  ${entry.seconds.toFixed(1).padStart(6)}s  ${entry.name}`);
  return [`the ${Math.min(count, timings.length)} slowest mutants (of ${timings.length}, ${total.toFixed(0)} s of mutant time in all):`, ...lines];
}

function report(mutant: Mutant, result: SuiteResult): void {
  const failing = result.hung ? "suite hung" : `${String(result.failed).padStart(3)} failing`;
  console.log(`${result.failed > 0 ? "caught  " : "MISSED  "}  ${failing}  ${mutant.name}  (${result.seconds.toFixed(1)}s)`);
  for (const test of result.caughtBy.slice(0, 3)) console.log(`            by: ${test}`);
  if (result.caughtBy.length > 3) console.log(`            and ${result.caughtBy.length - 3} more`);
}

async function baseline(chosen: Mutant[]): Promise<void> {
  // A mutant only counts as caught if the untouched copy passes: a broken copy would "catch" everything.
  const tests = [...new Set(chosen.flatMap((mutant) => mutant.tests))].sort();
  const result = await inCopy(null, (copy, tmp) => runSuite(copy, tmp, null, tests, false));
  if (result.failed > 0 || result.passed === 0) {
    console.log(`the unmutated copy does not pass its mutants' tests (${result.failed} failing, ${result.passed} passing); fix the suite first`);
    for (const test of result.caughtBy) console.log(`  failing: ${test}`);
    const log = join(tmpdir(), "glassbox-mutate-baseline.log");
    writeFileSync(log, result.output);
    console.log(`the suite's output is in ${log}`);
    process.exit(1);
  }
  console.log(`baseline: the ${tests.length} named test files pass unmutated (${result.passed} tests) in ${result.seconds.toFixed(1)}s\n`);
}

async function check(chosen: Mutant[], options: MutateOptions): Promise<void> {
  const errors = declarationErrors(chosen, ROOT);
  if (errors.length) {
    for (const error of errors) console.log(error);
    console.log(`\n${errors.length} mutant declaration(s) to fix in scripts/mutate.ts or scripts/mutants/`);
    process.exit(1);
  }
  if (options.afterTests) console.log("baseline: the test run that just passed in this tree\n");
  else await baseline(chosen);
  const started = performance.now();
  const results = new Map<Mutant, SuiteResult>();
  await pool(chosen, options.jobs, runMutant, (mutant, result) => {
    results.set(mutant, result);
    report(mutant, result);
  });
  const wall = (performance.now() - started) / 1000;
  // The table: each mutant and the first test that caught it, in the order of MUTANTS.
  console.log("\n| mutant | caught by |\n| --- | --- |");
  for (const mutant of chosen) {
    const result = results.get(mutant)!;
    console.log(`| ${mutant.name} | ${result.failed > 0 ? (result.caughtBy[0] ?? `${result.failed} failing`) : "MISSED by its named tests"} |`);
  }
  console.log("");
  for (const line of slowest(chosen.map((mutant) => ({ name: mutant.name, seconds: results.get(mutant)!.seconds })))) console.log(line);
  const missed = chosen.filter((mutant) => results.get(mutant)!.failed === 0);
  console.log(`\n${chosen.length - missed.length} of ${chosen.length} mutants caught, ${wall.toFixed(0)} s on ${options.jobs} job(s)`);
  if (missed.length) {
    for (const mutant of missed) console.log(`missed by its named tests (${mutant.tests.join(", ")}): ${mutant.name}`);
    process.exit(1);
  }
}

async function find(chosen: Mutant[], options: MutateOptions): Promise<void> {
  const found: Record<string, string[]> = {};
  await pool(chosen, options.jobs, findTests, (mutant, result) => {
    found[mutant.name] = result.failed > 0 ? result.failingFiles : [];
    console.log(`${result.failed > 0 ? "found   " : "NONE    "}  ${mutant.name}  (${result.seconds.toFixed(1)}s): ${found[mutant.name]!.join(", ") || (result.hung ? "the suite hung" : "no test fails")}`);
  });
  console.log(JSON.stringify(found, null, 1));
}

if (import.meta.main) {
  const options = parseArguments(process.argv.slice(2), availableParallelism());
  const chosen = options.names.length ? MUTANTS.filter((mutant) => options.names.includes(mutant.name)) : MUTANTS;
  const unknown = options.names.filter((name) => !MUTANTS.some((mutant) => mutant.name === name));
  if (unknown.length) {
    console.log(`no mutant is named ${unknown.map((name) => `"${name}"`).join(", ")}`);
    process.exit(1);
  }
  SNAPSHOT = mkdtempSync(join(tmpdir(), "glassbox-mutant-snapshot-"));
  for (const entry of COPIED) if (existsSync(join(ROOT, entry))) cpSync(join(ROOT, entry), join(SNAPSHOT, entry), { recursive: true });
  process.on("exit", () => {
    for (const folder of [SNAPSHOT, ...allCopies]) rmSync(folder, { recursive: true, force: true });
  });
  await (options.findTests ? find(chosen, options) : check(chosen, options));
}
