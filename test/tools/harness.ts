/**
 * Drives one tool call through the real Checkpoint (unknown tool → arguments → preflight → rules
 * → approval → run → clip), the way the loop does, without a model.
 */
import { tmpdir } from "node:os";
import { expect } from "bun:test";
import { Checkpoint, type Approver, type ApprovalRequest, type Verdict } from "../../src/core/checkpoint.ts";
import { Policy, parseRule } from "../../src/core/policy.ts";
import { DEFAULT_LIMITS } from "../../src/protocol/limits.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { TOOL_NAMES, defaultTools } from "../../src/tools/index.ts";
import type { Checks } from "../../src/tools/checks.ts";
import type { Tool } from "../../src/tools/tool.ts";
import { FakeClock } from "../helpers/run.ts";
import type { TestWorkspace } from "../helpers/workspace.ts";

export interface GateOptions {
  checks?: Checks;
  tools?: Tool[];
  allow?: string[];
  deny?: string[];
  approver?: Approver;
  maxResultChars?: number;
  execute?: boolean;
  /** Whether a sandbox can hold the workspace read-only (default false: the default tools run commands unconfined). */
  sandboxed?: boolean;
}

export interface Gate {
  checkpoint: Checkpoint;
  /** One call, as the model would make it. */
  call(name: string, args: unknown, signal?: AbortSignal): Promise<Verdict>;
}

export function gate(root: string, options: GateOptions = {}): Gate {
  const checkpoint = new Checkpoint({
    tools: options.tools ?? defaultTools(options.checks ?? {}),
    workspace: new Workspace(root),
    clock: new FakeClock(),
    policy: new Policy(
      (options.allow ?? []).map((rule) => parseRule(rule, TOOL_NAMES)),
      (options.deny ?? []).map((rule) => parseRule(rule, TOOL_NAMES)),
      options.sandboxed ?? false,
    ),
    approver: options.approver,
    maxResultChars: options.maxResultChars ?? DEFAULT_LIMITS.max_result_chars,
    execute: options.execute ?? true,
  });
  let n = 0;
  return {
    checkpoint,
    call: (name, args, signal = new AbortController().signal) => checkpoint.handle({ id: `c${++n}`, name, arguments: args }, signal),
  };
}

/** An approver that records every request it gets and answers the same each time. */
export function recordingApprover(answer: "yes" | "no" | "always" = "yes"): { approver: Approver; requests: ApprovalRequest[] } {
  const requests: ApprovalRequest[] = [];
  return {
    requests,
    approver: async (request) => {
      requests.push(request);
      return answer;
    },
  };
}

/** A refusal is one sentence naming what is wrong; it never shows where the machine keeps things. */
export function expectRefused(verdict: Verdict, ws: Pick<TestWorkspace, "root" | "outside">, ...mentions: (string | RegExp)[]): void {
  expect(verdict.decision).toBe("refused");
  expect(verdict.content).toBe(`Refused: ${verdict.reason}`);
  for (const mention of mentions) {
    if (typeof mention === "string") expect(verdict.reason).toContain(mention);
    else expect(verdict.reason).toMatch(mention);
  }
  expectNoMachinePaths(verdict, ws);
  // One sentence: it ends with a full stop and has no line breaks.
  expect(verdict.reason).not.toContain("\n");
  expect(verdict.reason).toMatch(/[.]$/);
}

export function expectNoMachinePaths(verdict: Verdict, ws: Pick<TestWorkspace, "root" | "outside">): void {
  for (const text of [verdict.reason, verdict.content]) {
    expect(text).not.toContain(ws.root);
    expect(text).not.toContain(ws.outside);
    expect(text).not.toContain(tmpdir());
  }
}

/** Runs one tool's preflight and execution directly, without the checkpoint's clipping. */
export async function runTool(tool: Tool, args: unknown, root: string): Promise<string> {
  const context = { workspace: new Workspace(root), clock: new FakeClock(), signal: new AbortController().signal, todo: [] };
  const plan = await tool.plan(args as never, context);
  return plan.execute();
}
