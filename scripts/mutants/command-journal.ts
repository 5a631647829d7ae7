import type { Mutant } from "../mutate.ts";

const JOURNAL_TESTS = ["test/sandbox/command-journal.test.ts"];

/**
 * What a command may change (issue #45): read-only rules keep the workspace read-only, every
 * other command's changes go through the overlay into the undo journal, secrets are hidden at
 * every depth. Each guard removed, a test must fail.
 */
export const MUTANTS: Mutant[] = [
  {
    name: "the checkpoint drops a read-only rule's mode",
    file: "src/core/checkpoint.ts",
    find: 'plan.readOnly = (rules.verdict === "allow" && rules.readOnly && !reason) || this.options.readOnly === true;',
    replace: "plan.readOnly = this.options.readOnly === true;",
    tests: ["test/tools/run_command.test.ts"],
  },
  {
    name: "with no sandbox read-only rules still allow",
    file: "src/core/policy.ts",
    find: "if (chosen.readOnly && !this.readOnlyEnforced)",
    replace: "if (false)",
    tests: ["test/core/command-policy.test.ts"],
  },
  {
    name: "a read-only rule beats the person's rule that may write",
    file: "src/core/policy.ts",
    find: "const chosen = allowed.find((rule) => !rule.readOnly) ?? allowed[0];",
    replace: "const chosen = allowed[0];",
    tests: ["test/core/command-policy.test.ts"],
  },
  {
    name: "a read-only command runs with no sandbox",
    file: "src/tools/run_command.ts",
    find: 'if (sandbox.kind === "none") throw new Refusal(',
    replace: 'if (sandbox.kind === "none" && false) throw new Refusal(',
    tests: ["test/tools/run_command.test.ts"],
  },
  {
    name: "the read-only workspace is writable",
    file: "src/sandbox/rules.ts",
    find: 'const bounds = access.kind === "read-only" ? writable.filter((path) => !isWithin(workspace, path)) : writable;',
    replace: "const bounds = writable;",
    tests: JOURNAL_TESTS,
  },
  {
    name: "a command's writes bypass the overlay",
    file: "src/sandbox/bwrap.ts",
    find: 'args.push("--bind", overlay && path === rules.workspace ? overlay.merged : path, path);',
    replace: 'args.push("--bind", path, path);',
    tests: JOURNAL_TESTS,
  },
  {
    name: "a command that may write runs in place",
    file: "src/tools/journaled-command.ts",
    find: 'const outcome = await command.run({ kind: "overlay", ...folders });',
    replace: 'const outcome = await command.run({ kind: "direct" });',
    tests: JOURNAL_TESTS,
  },
  {
    name: "a command's changes are applied unjournaled",
    file: "src/tools/command-changes.ts",
    find: "const saved = at.journal?.saveBefore(COMMAND_TOOL, { real: to, relative: path, stats: now }, after, stats.isSymbolicLink());",
    replace: "const saved = undefined as { done(): void; failed(): void } | undefined;",
    tests: JOURNAL_TESTS,
  },
  {
    name: "a command's deletions are not applied",
    file: "src/tools/command-changes.ts",
    find: "if (stats.isCharacterDevice() && stats.rdev === 0) removeTree(at, path, inIgnored);",
    replace: "if (stats.isCharacterDevice() && stats.rdev === 0) void 0;",
    tests: JOURNAL_TESTS,
  },
  {
    name: "a folder made again keeps what the command removed",
    file: "src/tools/command-changes.ts",
    find: "else if (isOpaque(join(at.upper, path))) {",
    replace: "else if (false) {",
    tests: JOURNAL_TESTS,
  },
  {
    name: "files in git-ignored folders are journaled and not counted",
    file: "src/tools/command-changes.ts",
    find: "  if (ignored) {\n    moveInto(from, to, stats);",
    replace: "  if (false) {\n    moveInto(from, to, stats);",
    tests: JOURNAL_TESTS,
  },
  {
    name: "off-limits names in a command's layer are applied",
    file: "src/tools/command-changes.ts",
    find: "if (isOffLimitsName(name)) {",
    replace: "if (false) {",
    tests: ["test/tools/command-changes.test.ts"],
  },
  {
    name: "nested .env files are not hidden from commands",
    file: "src/sandbox/rules.ts",
    find: "for (const path of scan.secrets) hide(join(workspace, path));",
    replace: 'for (const path of scan.secrets.filter((path) => !path.includes("/"))) hide(join(workspace, path));',
    tests: JOURNAL_TESTS,
  },
  {
    name: "undo follows a link a command left",
    file: "src/files/restore.ts",
    find: "target = link ? linkPath(workspace, path) : workspace.resolve(path);",
    replace: "target = workspace.resolve(path);",
    tests: JOURNAL_TESTS,
  },
  {
    name: "undo ignores a mode-only change",
    file: "src/files/restore.ts",
    find: "const sameMode = mode === undefined || !target.stats?.isFile() || (target.stats.mode & 0o7777) === mode;",
    replace: "const sameMode = true;",
    tests: JOURNAL_TESTS,
  },
  {
    name: "undo does not plan a skipped file again",
    file: "src/files/restore.ts",
    find: 'const file = planned.action === "skip" && planned.replan ? planned.replan() : planned;',
    replace: "const file = planned;",
    tests: JOURNAL_TESTS,
  },
];

/** The snapshot route, where no overlay can be mounted. */
MUTANTS.push(
  {
    name: "a rule runs a command past the snapshot's bound without asking",
    file: "src/core/checkpoint.ts",
    find: 'const mustAsk = (tool.needsApproval && rules.verdict !== "allow") || askAnyway !== undefined;',
    replace: 'const mustAsk = tool.needsApproval && rules.verdict !== "allow";',
    tests: ["test/tools/run_command.test.ts", "test/tools/run_check.test.ts"],
  },
  {
    name: "the snapshot's bound ignored",
    file: "src/tools/command-snapshot.ts",
    find: "if (files.length > bound.max_files) return",
    replace: "if (false) return",
    tests: ["test/tools/run_command.test.ts"],
  },
  {
    name: "a command's deletions left out of the snapshot's journal",
    file: "src/tools/command-snapshot.ts",
    find: 'if (!now.has(path)) record(path, "deleted", was.stats, null);',
    replace: "if (!now.has(path)) void was;",
    tests: ["test/tools/run_command.test.ts"],
  },
  {
    name: "the snapshot journals a mode-only change as none",
    file: "src/tools/command-snapshot.ts",
    find: "if (sameBytes && (file.stats.isSymbolicLink() || (was.stats.mode & 0o7777) === (file.stats.mode & 0o7777))) continue;",
    replace: "if (sameBytes) continue;",
    tests: ["test/tools/run_command.test.ts"],
  },
  {
    name: "a read-only workspace under a writable folder is writable through it",
    file: "src/sandbox/rules.ts",
    find: "return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);",
    replace: "return path === folder;",
    tests: ["test/sandbox/rules.test.ts"],
  },
  {
    name: "a writable folder holding the workspace covers the overlay",
    file: "src/sandbox/bwrap.ts",
    find: "for (const path of [...rules.writable].sort((a, b) => a.length - b.length)) args.push(",
    replace: "for (const path of rules.writable) args.push(",
    tests: ["test/sandbox/rules.test.ts"],
  },
  {
    name: "a full disk while applying a command's changes crashes the tool",
    file: "src/tools/command-changes.ts",
    find: "if (!isDiskFull(error)) throw error;",
    replace: "throw error;",
    tests: ["test/files/write-faults.test.ts"],
  },
  {
    name: "a workspace grown past the bound runs a command unjournaled",
    file: "src/tools/journaled-command.ts",
    find: "if (!snapshot && choice.tooBig === null) throw new Refusal(",
    replace: "if (false) throw new Refusal(",
    tests: ["test/tools/run_command.test.ts"],
  },
  {
    name: "a killed glassbox's command folders are never removed",
    file: "src/files/temporary-files.ts",
    find: "if (folderPid && !processAlive(folderPid)) {",
    replace: "if (folderPid && false) {",
    tests: ["test/files/write-faults.test.ts"],
  },
  {
    name: "a running glassbox's command folders are removed",
    file: "src/files/temporary-files.ts",
    find: "if (folderPid && !processAlive(folderPid)) {",
    replace: "if (folderPid) {",
    tests: ["test/files/write-faults.test.ts"],
  },
);

// What a command or check changed, in its tool_call event (CONTRACT.md's `changes`), and checks journaled like commands.
MUTANTS.push(
  {
    name: "a command's changes left out of its tool_call event",
    file: "src/core/run.ts",
    find: "changes: verdict.changes?.changes ?? []",
    replace: "changes: []",
    tests: ["test/tools/run_command.test.ts", "test/tools/run_check.test.ts"],
  },
  {
    name: "a command's changes listed unsorted",
    file: "src/tools/journaled-command.ts",
    find: "return [...seen.values()].sort((a, b) =>",
    replace: "return [...seen.values()].filter((a, b) =>",
    tests: ["test/tools/run_command.test.ts", "test/tools/run_check.test.ts"],
  },
  {
    name: "a re-mode reported as a change",
    file: "src/tools/journaled-command.ts",
    find: '"re-moded": "mode"',
    replace: '"re-moded": "changed"',
    tests: ["test/tools/run_check.test.ts"],
  },
  {
    name: "a check runs unjournaled past the snapshot's bound without asking",
    file: "src/core/checkpoint.ts",
    find: "(!tool.needsApproval || (rules.verdict",
    replace: "((rules.verdict",
    tests: ["test/tools/run_check.test.ts"],
  },
  {
    name: "a check's changes kept out of the undo journal",
    file: "src/tools/run_check.ts",
    find: "await runJournaled({ root: workspace.root, journal, bound",
    replace: "await runJournaled({ root: workspace.root, journal: undefined, bound",
    tests: ["test/tools/run_check.test.ts"],
  },
  {
    name: "a headless denial hides why a rule's allow was not enough",
    file: "src/core/checkpoint.ts",
    find: "return no(ruleWhy ? ",
    replace: "return no(false ? ",
    tests: ["test/tools/run_check.test.ts"],
  },
);

// A hang-up after a headless run has ended is ignored while glassbox exits with the run's status.
MUTANTS.push(
  {
    name: "a late hang-up ends a finished headless run with exit 129",
    file: "src/cli/run.ts",
    find: "    ignoreHangUps();\n",
    replace: "",
    tests: ["test/cli/run.test.ts"],
  },
  {
    name: "ignoring hang-ups leaves them their default action",
    file: "src/platform/hang-ups.ts",
    find: "if (!process.listeners(name).includes(ignore)) process.on(name, ignore);",
    replace: "if (!process.listeners(name).includes(ignore)) void ignore;",
    tests: ["test/platform/hang-ups.test.ts"],
  },
);
