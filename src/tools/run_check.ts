import { z } from "zod";
import { defineTool, type Tool, type ToolPlan } from "./tool.ts";
import { describeOutcome, runCheck, type Checks } from "./checks.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";

export const RUN_CHECK = "run_check";

/** run_check exists only when checks are configured; its `name` is an enum of them. */
export function makeRunCheck(checks: Checks, sandbox?: Sandbox): Tool | null {
  const names = Object.keys(checks);
  if (names.length === 0) return null;
  return defineTool({
    name: RUN_CHECK,
    description:
      "Run one of the project's configured checks (a fixed command chosen by the user) and get its exit code and output. " +
      `Available: ${names.join(", ")}.`,
    schema: z.object({ name: z.enum(names as [string, ...string[]]).describe("Which check to run") }).strict(),
    needsApproval: false,
    async plan(args, { workspace, signal }) {
      const check = checks[args.name]!;
      const plan: ToolPlan = {
        target: args.name,
        async execute() {
          const outcome = await runCheck(check, workspace.root, signal, sandbox);
          plan.succeeded = outcome.exitCode === 0;
          return `${describeOutcome(`Check ${args.name}`, outcome, check)}\n${outcome.output}`;
        },
      };
      return plan;
    },
  });
}
