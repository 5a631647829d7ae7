import { z } from "zod";
import { defineTool, type ToolPlan } from "./tool.ts";
import { Refusal } from "../protocol/refusal.ts";
import { describeOutcome, runCheck, type Check, type CheckOutcome } from "./checks.ts";
import type { Workspace } from "../files/workspace.ts";
import type { ChangeJournal } from "../files/journal.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import { UNCONFINED } from "../sandbox/detect.ts";
import { RUN_COMMAND } from "../protocol/tool-names.ts";
import { PARSE_ONCE } from "../protocol/zod-start.ts";
import type { WorkspaceAccess } from "../sandbox/rules.ts";
import { SNAPSHOT_BOUND, type SnapshotBound } from "./command-snapshot.ts";
import { NO_CHANGES, askAnywayReason, chooseJournaling, runJournaled, undoDetail, type JournalingChoice } from "./journaled-command.ts";

/** A command's clock: the default when the model names none, and the most it may ask for. */
export const COMMAND_TIMEOUT = z
  .object({ default_seconds: z.number().positive(), max_seconds: z.number().positive() })
  .parse({ default_seconds: 120, max_seconds: 600 }, PARSE_ONCE);

const schema = z
  .object({
    argv: z
      .array(z.string().max(10_000))
      .min(1)
      .max(1_000)
      .refine((argv) => argv[0] !== "", { message: "the program (its first item) is empty" })
      .describe('The program and its arguments, one item each, run without a shell: ["npx", "vitest", "run", "test/a.test.ts"]. No pipes, globs, $VARIABLES or &&.'),
    cwd: z.string().max(1000).optional().describe("Folder to start in (default: the workspace root)"),
    timeout_seconds: z
      .number()
      .positive()
      .max(COMMAND_TIMEOUT.max_seconds)
      .optional()
      .describe(`Seconds before it is killed (default ${COMMAND_TIMEOUT.default_seconds}, at most ${COMMAND_TIMEOUT.max_seconds})`),
  })
  .strict();

/** What rules match: the argv joined with single spaces, unquoted (CONTRACT.md). */
export function commandLine(argv: readonly string[]): string {
  return argv.join(" ");
}

/**
 * The rule "always" makes: the command's first two words and anything after them
 * (`run_command:npm test*`); a one-word command allows that word alone. A word holding `*`
 * would widen the rule past what the person saw, so then no rule is made ("always" is a yes).
 */
export function sessionRuleFor(argv: readonly string[]): string | null {
  const words = argv.slice(0, 2);
  if (words.some((word) => word.includes("*"))) return null;
  return words.length === 1 ? `${RUN_COMMAND}:${words[0]}` : `${RUN_COMMAND}:${commandLine(words)}*`;
}

/**
 * run_command: a check the model proposed. It runs through the same runner and sandbox as the
 * configured checks (no shell, secrets hidden, network off, `.git` read-only, the tree killed at
 * its end). Allowed by a read-only rule, it runs with the workspace read-only; otherwise, in bwrap,
 * over a copy-on-write overlay whose changes are journaled and applied when it ends, so undo
 * restores them; elsewhere it writes in place and says which files it changed.
 */
export function makeRunCommand(sandbox: Sandbox = UNCONFINED, bound: SnapshotBound = SNAPSHOT_BOUND) {
  return defineTool({
    name: RUN_COMMAND,
    description:
      "Run a program in the workspace without a shell, sandboxed (no network, secrets hidden, .git read-only): its exit code, its output and the files it changed (undo restores them). " +
      "Asks the user unless a rule allows it; read-only git (status, diff, log, show) is allowed.",
    schema,
    needsApproval: true,
    async plan(args, { workspace, signal, journal }) {
      if (args.argv.some((arg) => arg.includes("\0"))) throw new Refusal("Argument `argv` contains a NUL byte; send plain strings.");
      const start = startFolder(workspace, args.cwd);
      const timeout = args.timeout_seconds ?? COMMAND_TIMEOUT.default_seconds;
      const check: Check = { argv: args.argv, timeout_seconds: timeout, env: [] };
      const line = commandLine(args.argv);
      // Without an overlay: a bounded snapshot; past the bound a command a rule allowed is asked (ToolPlan.askAnyway).
      const choice = chooseJournaling(sandbox, workspace.root, bound);
      const plan: ToolPlan = {
        target: line,
        sessionRule: sessionRuleFor(args.argv),
        details: [
          `command:   ${JSON.stringify(args.argv)} (no shell)`,
          `starts in: ${start.relative === "." ? "the workspace root" : `${start.relative}/`} (it may still touch the whole workspace)`,
          `sandbox:   ${sandboxLine(sandbox)}`,
          `timeout:   ${timeout} s, then it and everything it started are killed`,
          undoDetail(choice),
        ],
        askAnyway: askAnywayReason(RUN_COMMAND, choice),
        execute: () => executeCommand({ check, line, workspace, start: start.real, signal, sandbox, journal, plan, bound, choice }),
      };
      return plan;
    },
  });
}

interface Running {
  check: Check;
  line: string;
  workspace: Workspace;
  /** Where it starts (real path, confined). */
  start: string;
  signal: AbortSignal;
  sandbox: Sandbox;
  journal: ChangeJournal | undefined;
  plan: ToolPlan;
  bound: SnapshotBound;
  choice: JournalingChoice;
}

/**
 * Runs an approved command read-only (a read-only rule allowed it) or journaled (runJournaled:
 * over the overlay, or in place after a bounded snapshot); what it changed is the result's note
 * and the plan's `changes`, for the tool_call event.
 */
async function executeCommand(run: Running): Promise<string> {
  const { check, workspace, plan, sandbox } = run;
  const subject = `The command \`${clipped(run.line)}\``;
  const said = (outcome: CheckOutcome, note: string) =>
    `${describeOutcome(subject, outcome, check, "it is not installed here or not on PATH; use another command")}${outcome.notStarted ? "" : `\n${note}`}\n${outcome.output}`;
  const runIt = async (access: WorkspaceAccess) => {
    const outcome = await runCheck(check, workspace.root, run.signal, sandbox, run.start, access);
    plan.succeeded = outcome.exitCode === 0;
    return outcome;
  };
  if (plan.readOnly) {
    // Without a sandbox nothing could hold the workspace read-only, so it does not run.
    if (sandbox.kind === "none") throw new Refusal(`${subject} was not run: a read-only rule allowed it, but no sandbox here can keep the workspace read-only; ask the user.`);
    plan.changes = NO_CHANGES;
    return said(await runIt({ kind: "read-only" }), READ_ONLY_NOTE);
  }
  const { outcome, report } = await runJournaled({ root: workspace.root, journal: run.journal, bound: run.bound, choice: run.choice, subject, run: runIt });
  plan.changes = report;
  return said(outcome, report.note);
}

/** Said after a command a read-only rule allowed. */
export const READ_ONLY_NOTE = "It ran with the workspace read-only (a read-only rule allowed it without asking): it could change no workspace file.";

/** `cwd` is confined like any path argument and must be a folder. */
function startFolder(workspace: Workspace, cwd: string | undefined) {
  const start = workspace.resolve(cwd ?? ".", "cwd");
  if (!start.stats) throw new Refusal("Argument `cwd` names no folder in the workspace; list_files shows what exists.");
  if (!start.stats.isDirectory()) throw new Refusal("Argument `cwd` is a file, not a folder; give the folder to start in.");
  return start;
}

function sandboxLine(sandbox: Sandbox): string {
  if (sandbox.kind === "none") return "none: it runs unconfined, with your permissions, your secrets and the network";
  return `${sandbox.kind}: network off, secrets hidden (~/.ssh, .env, …), .git read-only, writes only in the workspace, its TMPDIR and ~/.cache`;
}

function clipped(line: string): string {
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
