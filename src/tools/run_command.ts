import { z } from "zod";
import { defineTool, type ToolPlan } from "./tool.ts";
import { Refusal } from "../protocol/refusal.ts";
import { describeOutcome, runCheck, type Check, type CheckOutcome } from "./checks.ts";
import { statSync } from "node:fs";
import { join } from "node:path";
import { workspaceFiles } from "./tree/walk.ts";
import type { Workspace } from "../files/workspace.ts";
import type { ChangeJournal } from "../files/journal.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import { UNCONFINED } from "../sandbox/detect.ts";
import { RUN_COMMAND } from "../protocol/tool-names.ts";
import { PARSE_ONCE } from "../protocol/zod-start.ts";
import type { WorkspaceAccess } from "../sandbox/rules.ts";
import { makeOverlayFolders, overlayProblem, removeOverlayFolders } from "../sandbox/overlay.ts";
import { applyCommandChanges, type AppliedChanges } from "./command-changes.ts";
import { SNAPSHOT_BOUND, journalSnapshot, ownFiles, pastBound, takeSnapshot, type SnapshotBound } from "./command-snapshot.ts";

/** A command's clock: the default when the model names none, and the most it may ask for. */
export const COMMAND_TIMEOUT = z
  .object({ default_seconds: z.number().positive(), max_seconds: z.number().positive() })
  .parse({ default_seconds: 120, max_seconds: 600 }, PARSE_ONCE);

/** Files compared before and after a command; a bigger tree is not looked at (the result says so). */
const MAX_COMPARED_FILES = 50_000;
/** Changed files named in a result; the rest are counted. */
const MAX_NAMED_CHANGES = 30;

const schema = z
  .object({
    argv: z
      .array(z.string().max(10_000))
      .min(1)
      .max(1_000)
      .refine((argv) => argv[0] !== "", { message: "the program (its first item) is empty" })
      .describe('The program and its arguments, one item each, run without a shell: ["npx", "vitest", "run", "test/a.test.ts"]. No pipes, globs, $VARIABLES or &&.'),
    cwd: z.string().max(1000).optional().describe("Folder to start in, relative to the workspace root (default: the root)"),
    timeout_seconds: z
      .number()
      .positive()
      .max(COMMAND_TIMEOUT.max_seconds)
      .optional()
      .describe(`Seconds before the command and everything it started are killed (default ${COMMAND_TIMEOUT.default_seconds}, at most ${COMMAND_TIMEOUT.max_seconds})`),
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
      "Run a command in the workspace, without a shell, in a sandbox (no network, secrets hidden, .git read-only), and get its exit code, " +
      "its output and the workspace files it changed. Needs the user's approval unless a rule allows it; read-only git (status, diff, log, show) is allowed and runs with the workspace read-only. " +
      "Prefer it for one test file or a quick look; the files it changes go in the undo journal where the sandbox allows it (the approval says).",
    schema,
    needsApproval: true,
    async plan(args, { workspace, signal, journal }) {
      if (args.argv.some((arg) => arg.includes("\0"))) throw new Refusal("Argument `argv` contains a NUL byte; send plain strings.");
      const start = startFolder(workspace, args.cwd);
      const timeout = args.timeout_seconds ?? COMMAND_TIMEOUT.default_seconds;
      const check: Check = { argv: args.argv, timeout_seconds: timeout, env: [] };
      const line = commandLine(args.argv);
      const journaling = canJournal(sandbox, workspace.root);
      // Without an overlay: a bounded snapshot; past the bound a command a rule allowed is asked (ToolPlan.askAnyway).
      const tooBig = journaling ? null : pastBound(ownFiles(workspace.root), bound);
      const plan: ToolPlan = {
        target: line,
        sessionRule: sessionRuleFor(args.argv),
        details: [
          `command:   ${JSON.stringify(args.argv)} (no shell)`,
          `starts in: ${start.relative === "." ? "the workspace root" : `${start.relative}/`} (it may still touch the whole workspace)`,
          `sandbox:   ${sandboxLine(sandbox)}`,
          `timeout:   ${timeout} s, then it and everything it started are killed`,
          tooBig === null
            ? "undo:      its changes are saved in the undo journal; glassbox undo restores them"
            : `undo:      files it writes are NOT in the undo journal (${tooBig}); glassbox undo cannot restore them`,
        ],
        askAnyway: tooBig === null ? undefined : `run_command may write and its changes cannot be journaled here: ${tooBig}`,
        execute: () => executeCommand({ check, line, workspace, start: start.real, signal, sandbox, journal, plan, bound, unjournaledSaid: tooBig !== null }, journaling),
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
  /** The person was told its writes would not be journaled (past the bound), and said yes. */
  unjournaledSaid: boolean;
}

/**
 * Runs an approved command one of three ways: read-only (a read-only rule allowed it); over the
 * overlay, its changes journaled and applied after it (killed or stopped included: what it had
 * done is applied too); or in place, a bounded snapshot taken before it as the journal's "before"
 * (past the bound a person said yes: the changed files are only named).
 */
async function executeCommand(run: Running, journaling: boolean): Promise<string> {
  const { check, workspace, plan, sandbox } = run;
  const subject = `The command \`${clipped(run.line)}\``;
  const said = (outcome: CheckOutcome, note: () => string) =>
    `${describeOutcome(subject, outcome, check, "it is not installed here or not on PATH; use another command")}${outcome.notStarted ? "" : `\n${note()}`}\n${outcome.output}`;
  const runIt = async (access: WorkspaceAccess) => {
    const outcome = await runCheck(check, workspace.root, run.signal, sandbox, run.start, access);
    plan.succeeded = outcome.exitCode === 0;
    return outcome;
  };
  if (plan.readOnly) {
    // Without a sandbox nothing could hold the workspace read-only, so it does not run.
    if (sandbox.kind === "none") throw new Refusal(`${subject} was not run: a read-only rule allowed it, but no sandbox here can keep the workspace read-only; ask the user.`);
    return said(await runIt({ kind: "read-only" }), () => READ_ONLY_NOTE);
  }
  if (journaling) {
    const folders = makeOverlayFolders(workspace.root);
    try {
      const outcome = await runIt({ kind: "overlay", ...folders });
      const applied = applyCommandChanges(workspace.root, folders.upper, run.journal);
      return said(outcome, () => journaledChanges(applied));
    } finally {
      removeOverlayFolders(folders);
    }
  }
  const snapshot = takeSnapshot(workspace.root, run.bound);
  // Grown past the bound since it was planned (or the snapshot failed): never run unjournaled unless the person was told.
  if (!snapshot && !run.unjournaledSaid) throw new Refusal(`${subject} was not run: no snapshot of the workspace could be taken for undo (it may have grown past the bound); tell the user.`);
  const before = snapshot ? null : fileStamps(workspace);
  const outcome = await runIt({ kind: "direct" });
  const journaled = snapshot ? journalSnapshot(workspace.root, snapshot, run.journal) : null;
  return said(outcome, () => (journaled ? journaledChanges(journaled) : changedFiles(before, fileStamps(workspace))));
}

/** Said after a command a read-only rule allowed. */
export const READ_ONLY_NOTE = "It ran with the workspace read-only (a read-only rule allowed it without asking): it could change no workspace file.";

/** Whether a command's writes can be journaled here: bwrap, with an overlay the kernel lets glassbox mount over this workspace. */
function canJournal(sandbox: Sandbox, root: string): boolean {
  return sandbox.kind === "bwrap" && overlayProblem(root) === null;
}

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

/**
 * Size and mtime of each file the tree tools see (git's ignore rules applied, so a build's output
 * folder is not walked): cheap, and enough to notice a write. null: too many to compare.
 */
function fileStamps(workspace: Workspace): Map<string, string> | null {
  const files = workspaceFiles(workspace.root);
  if (files.length > MAX_COMPARED_FILES) return null;
  const stamps = new Map<string, string>();
  for (const path of files) {
    try {
      const stats = statSync(join(workspace.root, path));
      stamps.set(path, `${stats.size}:${stats.mtimeMs}`);
    } catch {
      // Gone since it was listed: left out, as if it had not been there.
    }
  }
  return stamps;
}

/** One line for the model and the person: what the command changed, all of it in the undo journal but the git-ignored files, counted. */
export function journaledChanges(applied: AppliedChanges): string {
  const heading = "Workspace files it changed (in the undo journal: glassbox undo restores them):";
  const named = applied.journaled.slice(0, MAX_NAMED_CHANGES).map((change) => {
    const size = change.what === "re-moded" ? "" : `, ${change.size} bytes`;
    return `${change.path} (${change.link ? `${change.what} link` : change.what}${size})`;
  });
  const more = applied.journaled.length > MAX_NAMED_CHANGES ? `, and ${applied.journaled.length - MAX_NAMED_CHANGES} more` : "";
  const ignored = applied.ignored ? ` ${applied.ignored} files in git-ignored folders were written without journal copies.` : "";
  const leftOut = applied.leftOut.length ? ` Not applied (off limits): ${applied.leftOut.slice(0, MAX_NAMED_CHANGES).join(", ")}.` : "";
  const stopped = applied.stopped ? ` Stopped: ${applied.stopped}; tell the user the disk is full.` : "";
  return `${heading} ${named.length ? `${named.join(", ")}${more}` : "none"}.${ignored}${leftOut}${stopped}`;
}

/** One line for the model and the person: which files the command added, changed and deleted. */
export function changedFiles(before: Map<string, string> | null, after: Map<string, string> | null): string {
  const heading = "Workspace files it changed (not in the undo journal):";
  if (!before || !after) return `${heading} not compared, the workspace holds over ${MAX_COMPARED_FILES} files.`;
  const changes: string[] = [];
  for (const [path, stamp] of after) {
    const was = before.get(path);
    if (was === undefined) changes.push(`${path} (new)`);
    else if (was !== stamp) changes.push(`${path} (changed)`);
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push(`${path} (deleted)`);
  if (changes.length === 0) return `${heading} none.`;
  const more = changes.length > MAX_NAMED_CHANGES ? `, and ${changes.length - MAX_NAMED_CHANGES} more` : "";
  return `${heading} ${changes.slice(0, MAX_NAMED_CHANGES).join(", ")}${more}.`;
}
