import type { Mutant } from "../mutate.ts";

/** run_command's guards (CONTRACT.md "run_command"): each removed, a test must fail. */
export const MUTANTS: Mutant[] = [
  {
    name: "run_command goes through a shell",
    file: "src/tools/run_command.ts",
    find: "const check: Check = { argv: args.argv, timeout_seconds: timeout, env: [] };",
    replace: 'const check: Check = { argv: ["sh", "-c", commandLine(args.argv)], timeout_seconds: timeout, env: [] };',
    tests: ["test/tools/run_command.test.ts"],
  },
  {
    name: "built-in command denials dropped",
    file: "src/core/policy.ts",
    find: "this.deny = [...deny, ...BUILT_IN_DENY];",
    replace: "this.deny = [...deny];",
    tests: ["test/core/command-policy.test.ts"],
  },
  {
    name: "command timeout_seconds ignored",
    file: "src/tools/run_command.ts",
    find: "const timeout = args.timeout_seconds ?? COMMAND_TIMEOUT.default_seconds;",
    replace: "const timeout = COMMAND_TIMEOUT.default_seconds;",
    tests: ["test/tools/run_command.test.ts"],
  },
  {
    name: "command timeout over 600 s accepted",
    file: "src/tools/run_command.ts",
    find: ".max(COMMAND_TIMEOUT.max_seconds)",
    replace: "",
    tests: ["test/tools/run_command.test.ts"],
  },
  {
    name: "command cwd escapes the workspace",
    file: "src/tools/run_command.ts",
    find: 'const start = workspace.resolve(cwd ?? ".", "cwd");',
    replace: 'const start = { ...workspace.resolve(".", "cwd"), real: `${workspace.root}/${cwd ?? "."}`, relative: cwd ?? "." };',
    tests: ["test/tools/run_command.test.ts"],
  },
  {
    name: "command cwd ignored by bwrap",
    file: "src/sandbox/bwrap.ts",
    find: 'args.push("--chdir", rules.cwd, "--", ...argv);',
    replace: 'args.push("--chdir", rules.workspace, "--", ...argv);',
    tests: ["test/sandbox/sandbox.test.ts"],
  },
  {
    name: "always on a command allows every command",
    file: "src/core/checkpoint.ts",
    find: "this.options.policy.allowForSession(parseRule(plan.sessionRule, [tool.name]));",
    replace: "this.options.policy.allowForSession({ text: tool.name, tool: tool.name, glob: null });",
    tests: ["test/tools/run_command.test.ts"],
  },
  {
    name: "a * in a command's first words widens the session rule",
    file: "src/tools/run_command.ts",
    find: 'if (words.some((word) => word.includes("*"))) return null;',
    replace: "",
    tests: ["test/tools/run_command.test.ts"],
  },
  {
    name: "the approval hides what a command will run",
    file: "src/tui/approval-modal.ts",
    find: '(description ?? details ?? "(no file change to show)")',
    replace: '(description ?? "(no file change to show)")',
    tests: ["test/e2e/run-command.test.ts"],
  },
  {
    name: "the approval hides the rule a makes",
    file: "src/tui/approval-modal.ts",
    find: "${alwaysMeans(request)}",
    replace: "always allow ${safeTagged(request.tool)} this session",
    tests: ["test/e2e/run-command.test.ts"],
  },
];
