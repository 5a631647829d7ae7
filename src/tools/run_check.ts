import { z } from "zod";
import { defineTool, type Tool, type ToolPlan } from "./tool.ts";
import { describeOutcome, runCheck, type Checks } from "./checks.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import type { WorkspaceAccess } from "../sandbox/rules.ts";
import { UNCONFINED } from "../sandbox/detect.ts";
import { RUN_CHECK } from "../protocol/tool-names.ts";
import { SNAPSHOT_BOUND, type SnapshotBound } from "./command-snapshot.ts";
import { askAnywayReason, chooseJournaling, runJournaled, undoDetail } from "./journaled-command.ts";

/**
 * run_check exists only when checks are configured; its `name` is an enum of them. A check is the
 * person's own command, so it runs without asking; like a command, what it writes in the workspace
 * is journaled (undo restores it) and listed, and where that cannot be done it is asked for.
 */
export function makeRunCheck(checks: Checks, sandbox: Sandbox = UNCONFINED, bound: SnapshotBound = SNAPSHOT_BOUND): Tool | null {
  const names = Object.keys(checks);
  if (names.length === 0) return null;
  return defineTool({
    name: RUN_CHECK,
    description:
      "Run one of the project's configured checks (a fixed command chosen by the user) and get its exit code and output. " +
      `Available: ${names.join(", ")}.`,
    schema: z.object({ name: z.enum(names as [string, ...string[]]).describe("Which check to run") }).strict(),
    needsApproval: false,
    async plan(args, { workspace, signal, journal }) {
      const check = checks[args.name]!;
      const choice = chooseJournaling(sandbox, workspace.root, bound);
      const subject = `Check ${args.name}`;
      const plan: ToolPlan = {
        target: args.name,
        details: [`command:   ${JSON.stringify(check.argv)} (a configured check)`, undoDetail(choice)],
        askAnyway: askAnywayReason(RUN_CHECK, choice),
        async execute() {
          const run = async (access: WorkspaceAccess) => {
            const outcome = await runCheck(check, workspace.root, signal, sandbox, workspace.root, access);
            plan.succeeded = outcome.exitCode === 0;
            return outcome;
          };
          const { outcome, report } = await runJournaled({ root: workspace.root, journal, bound, choice, subject, run });
          plan.changes = report;
          return `${describeOutcome(subject, outcome, check)}${outcome.notStarted ? "" : `\n${report.note}`}\n${outcome.output}`;
        },
      };
      return plan;
    },
  });
}
