/**
 * run_command's rules, tested by example the way Codex's exec policy is (its docs/execpolicy.md:
 * each `prefix_rule` carries `match`/`not_match` example commands, checked when the policy
 * loads, and `codex execpolicy check CMD` prints the decision): each table is a set of rules and
 * the verdict for each command line (argv joined with single spaces, CONTRACT.md "run_command").
 */
import { describe, expect, test } from "bun:test";
import { CommandGlob, Policy, READ_ONLY_UNENFORCED, parseRule, type PolicyVerdict } from "../../src/core/policy.ts";
import { TOOL_NAMES } from "../../src/tools/index.ts";
import { commandLine, sessionRuleFor } from "../../src/tools/run_command.ts";

/** The verdict, the rule, and for an allow the mode: `ro` (the workspace read-only) or `rw` (it may write, every change journaled). */
type Expected = "ask" | `ask: ${string}` | `allow ${string} ${"ro" | "rw"}` | `deny ${string}`;

function verdictOf(verdict: PolicyVerdict): Expected {
  if (verdict.verdict === "ask") return verdict.why ? `ask: ${verdict.why}` : "ask";
  return verdict.verdict === "allow" ? `allow ${verdict.rule} ${verdict.readOnly ? "ro" : "rw"}` : `deny ${verdict.rule}`;
}

const BUILT_IN_UNENFORCED = (glob: string): Expected => `ask: run_command:ro:${glob} matches, but ${READ_ONLY_UNENFORCED}`;

const TABLES: Array<{ rules: { allow?: string[]; deny?: string[] }; sandboxed?: false; cases: Array<[argv: string[], expected: Expected]> }> = [
  {
    // Built in, with no rule of the person's.
    rules: {},
    cases: [
      [["git", "status"], "allow run_command:ro:git status* ro"],
      [["git", "status", "--short"], "allow run_command:ro:git status* ro"],
      [["git", "diff", "HEAD~1", "--", "src/a.ts"], "allow run_command:ro:git diff* ro"],
      [["git", "log", "--oneline", "-5"], "allow run_command:ro:git log* ro"],
      [["git", "show", "HEAD:src/a.ts"], "allow run_command:ro:git show* ro"],
      [["git", "commit", "-m", "wip"], "ask"],
      [["git", "checkout", "."], "ask"],
      [["gitk", "status"], "ask"],
      [["npm", "test"], "ask"],
      [["git", "push"], "deny run_command:git push*"],
      [["git", "push", "--force", "origin", "main"], "deny run_command:git push*"],
      [["sudo", "rm", "-rf", "/"], "deny run_command:sudo*"],
      [["sudo"], "deny run_command:sudo*"],
      // The start of the line only: the sandbox holds against the rest.
      [["env", "sudo", "ls"], "ask"],
      [["echo", "git", "push"], "ask"],
      [["git", "-C", "..", "push"], "ask"],
      // git's own options and configuration can write: the built-ins still allow them, read-only,
      // so the write fails inside git (test/sandbox/command-journal.test.ts runs each for real).
      [["git", "diff", "--output=README.md"], "allow run_command:ro:git diff* ro"],
      [["git", "log", "-p", "--output", "src/a.ts"], "allow run_command:ro:git log* ro"],
      [["git", "show", "HEAD", "--output=notes.txt"], "allow run_command:ro:git show* ro"],
      [["git", "status", "-c", "core.fsmonitor=./hook"], "allow run_command:ro:git status* ro"],
      [["git", "-c", "alias.status=!rm README.md", "status"], "ask"],
      [["git", "-c", "diff.external=./writer", "diff"], "ask"],
    ],
  },
  {
    // No sandbox can run: the built-in allows cannot keep the workspace read-only, so they ask, saying why.
    rules: { allow: ["run_command:ro:make lint*", "run_command:npm test"] },
    sandboxed: false,
    cases: [
      [["git", "status"], BUILT_IN_UNENFORCED("git status*")],
      [["git", "diff", "--output=README.md"], BUILT_IN_UNENFORCED("git diff*")],
      [["make", "lint"], `ask: run_command:ro:make lint* matches, but ${READ_ONLY_UNENFORCED}`],
      [["npm", "test"], "allow run_command:npm test rw"],
      [["git", "push"], "deny run_command:git push*"],
    ],
  },
  {
    // The person's read-only rules; a rule that may write beats a read-only one matching the same line.
    rules: { allow: ["run_command:ro:make lint*", "run_command:ro:cargo check", "run_command:git diff --stat", "run_command:make lint --fix"] },
    cases: [
      [["make", "lint"], "allow run_command:ro:make lint* ro"],
      [["make", "lint", "--fix"], "allow run_command:make lint --fix rw"],
      [["make", "lint", "--quiet"], "allow run_command:ro:make lint* ro"],
      [["cargo", "check"], "allow run_command:ro:cargo check ro"],
      [["cargo", "build"], "ask"],
      [["git", "diff", "--stat"], "allow run_command:git diff --stat rw"],
      [["git", "diff"], "allow run_command:ro:git diff* ro"],
      [["ro:make", "lint"], "ask"],
    ],
  },
  {
    // A wide allow: everything but the built-in denials.
    rules: { allow: ["run_command"] },
    cases: [
      [["npm", "test"], "allow run_command rw"],
      [["rm", "-rf", "build"], "allow run_command rw"],
      [["git", "status"], "allow run_command rw"],
      [["sudo", "ls"], "deny run_command:sudo*"],
      [["git", "push", "origin", "HEAD"], "deny run_command:git push*"],
    ],
  },
  {
    // `*` crosses `/` and spaces; the rest of the glob is literal, anchored at both ends.
    rules: { allow: ["run_command:npx vitest run *"] },
    cases: [
      [["npx", "vitest", "run", "test/a.test.ts"], "allow run_command:npx vitest run * rw"],
      [["npx", "vitest", "run", "test/deep/er/a.test.ts", "--reporter=dot"], "allow run_command:npx vitest run * rw"],
      [["npx", "vitest", "run"], "ask"],
      [["npx", "vitest", "watch", "a.test.ts"], "ask"],
      [["xnpx", "vitest", "run", "a.test.ts"], "ask"],
      [["npx", "jest"], "ask"],
      [["sudo", "npx", "vitest", "run", "a"], "deny run_command:sudo*"],
    ],
  },
  {
    // The person's denials beat the built-in allows, and every allow.
    rules: { allow: ["run_command"], deny: ["run_command:git*", "run_command:*rm -rf*"] },
    cases: [
      [["git", "status"], "deny run_command:git*"],
      [["rm", "-rf", "build"], "deny run_command:*rm -rf*"],
      [["find", ".", "-exec", "rm", "-rf", "{}", ";"], "deny run_command:*rm -rf*"],
      [["rm", "build"], "allow run_command rw"],
    ],
  },
  {
    // Other tools' rules never reach a command.
    rules: { allow: ["write_file", "run_check:tests"] },
    cases: [
      [["npm", "test"], "ask"],
      [["git", "log"], "allow run_command:ro:git log* ro"],
    ],
  },
];

describe("run_command verdicts, command line → verdict", () => {
  for (const { rules, cases, sandboxed } of TABLES) {
    const label = `allow [${(rules.allow ?? []).join(", ")}] deny [${(rules.deny ?? []).join(", ")}]${sandboxed === false ? " with no sandbox" : ""}`;
    test(label, () => {
      const policy = new Policy(
        (rules.allow ?? []).map((text) => parseRule(text, TOOL_NAMES)),
        (rules.deny ?? []).map((text) => parseRule(text, TOOL_NAMES)),
        sandboxed !== false,
      );
      const got = cases.map(([argv]) => [commandLine(argv), verdictOf(policy.decide("run_command", commandLine(argv)))]);
      expect(got).toEqual(cases.map(([argv, expected]) => [commandLine(argv), expected]));
    });
  }

  test("a command line is argv joined with single spaces, unquoted", () => {
    expect(commandLine(["git", "commit", "-m", "two words"])).toBe("git commit -m two words");
    expect(commandLine(["ls"])).toBe("ls");
  });
});

describe("command globs", () => {
  const cases: Array<[glob: string, line: string, matches: boolean]> = [
    ["npx vitest run *", "npx vitest run a/b/c.test.ts", true],
    ["*", "", true],
    ["*", "anything at all / with slashes", true],
    ["git status*", "git status", true],
    ["git status*", "git statusx", true],
    ["git status*", "xgit status", false],
    ["*.ts", "bun test a.ts", true],
    ["*.ts", "bun test a.tsx", false],
    ["a*b*c", "a-b-b-c", true],
    ["a*b*c", "a-c-b", false],
    ["ls", "ls -la", false],
    ["ls", "ls", true],
    // Other glob characters are themselves in a command line.
    ["ls ?", "ls a", false],
    ["ls [ab]", "ls [ab]", true],
    ["ls {a,b}", "ls a", false],
  ];
  for (const [glob, line, matches] of cases) {
    test(`${JSON.stringify(glob)} ${matches ? "matches" : "does not match"} ${JSON.stringify(line)}`, () => {
      expect(new CommandGlob(glob).match(line)).toBe(matches);
    });
  }

  test("many stars against a long line that almost matches: answered (no backtracking blow-up)", () => {
    const glob = new CommandGlob(`${"a*".repeat(30)}b`);
    expect(glob.match("a".repeat(20_000))).toBe(false);
  });

  test("a path tool's glob still stops at / (only command rules cross it)", () => {
    const rule = parseRule("write_file:src/*", TOOL_NAMES);
    expect(rule.glob!.match("src/a.ts")).toBe(true);
    expect(rule.glob!.match("src/deep/a.ts")).toBe(false);
  });
});

describe("the rule `a` makes for the session", () => {
  const cases: Array<[argv: string[], rule: string | null]> = [
    [["npm", "test"], "run_command:npm test*"],
    [["npx", "vitest", "run", "test/a.test.ts"], "run_command:npx vitest*"],
    [["make"], "run_command:make"],
    [["ls", "*.ts"], null],
    [["*", "x"], null],
  ];
  for (const [argv, rule] of cases) {
    test(`${JSON.stringify(argv)} → ${rule}`, () => {
      expect(sessionRuleFor(argv)).toBe(rule);
      if (rule) expect(parseRule(rule, TOOL_NAMES).glob!.match(commandLine(argv))).toBe(true);
    });
  }
});
