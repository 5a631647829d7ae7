import { z } from "zod";
import { defineTool, type Tool, type ToolPlan } from "./tool.ts";
import { runCheck, type Checks } from "./checks.ts";
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
          const took = `${outcome.seconds.toFixed(1)}s`;
          const verdict = outcome.notStarted
            ? `could not start: its command \`${check.argv[0]}\` was not found or cannot run; tell the user`
            : outcome.timedOut
            ? `timed out after ${check.timeout_seconds}s and was stopped`
            : outcome.interrupted
              ? "was stopped because the run ended"
              : outcome.exitCode === 0
                ? `passed (exit 0, ${took})`
                : `failed (exit ${outcome.exitCode}, ${took})`;
          // Said up front, so the count survives when the result is clipped for the model.
          const dropped = outcome.droppedBytes ? ` Its output was long: ${outcome.droppedBytes} bytes from the middle were dropped.` : "";
          const cut =
            outcome.outputCutAt !== null
              ? ` Its output was cut at ${outcome.outputCutAt.toFixed(1)}s: a process it started still held the output open after it ended.`
              : "";
          return `Check ${args.name} ${verdict}.${dropped}${cut}\n${outcome.output}`;
        },
      };
      return plan;
    },
  });
}
