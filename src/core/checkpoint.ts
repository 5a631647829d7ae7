import { z } from "zod";
import type { Decision } from "../protocol/events.ts";
import type { ToolCallRequest } from "../protocol/messages.ts";
import type { Clock } from "../protocol/clock.ts";
import { clip } from "./clip.ts";
import { validateArguments } from "./validate.ts";
import { ARGUMENT_LIMITS, argumentsRefusal } from "../protocol/argument-limits.ts";
import { Policy, parseRule, type PolicyVerdict, type Rule } from "./policy.ts";
import { RUN_COMMAND } from "../protocol/tool-names.ts";
import { offeredName } from "../protocol/tool-names.ts";
import { Refusal, ToolFailure, type CommandChanges, type FileChange, type Tool, type TodoItem, type ToolContext, type ToolPlan } from "../tools/tool.ts";
import type { Workspace } from "../files/workspace.ts";
import type { ToolDeclaration } from "../protocol/model.ts";
import type { ChangeJournal } from "../files/journal.ts";

export interface ApprovalRequest {
  tool: string;
  /** The validated arguments. */
  arguments: unknown;
  target?: string;
  /** Why a person is asked: which rule sent it here. */
  why: string;
  /** The file before and after, for the tools that change files. */
  change?: FileChange;
  /** For another party's tool (MCP): what the model read about it. */
  description?: string;
  /** Facts about what will run, one per line (a command's folder, sandbox and undo). */
  details?: string[];
  /** What "always" allows for the session: a rule's text; null: no rule can be made, "always" is one yes. Absent: the tool. */
  sessionRule?: string | null;
  signal: AbortSignal;
}

export type ApprovalAnswer = "yes" | "no" | "always";
export type Approver = (request: ApprovalRequest) => Promise<ApprovalAnswer>;

export interface Verdict {
  decision: Decision;
  /** One sentence for the log and the verdicts pane; empty when allowed. */
  reason: string;
  /** What the model is sent as the tool's result. */
  content: string;
  /** An internal failure's detail: logged, never sent to the model. */
  detail?: string;
  /** The run should end after this call (an allowed `finish`). */
  finished?: { summary: string };
  /** The path or check the call was about (after preflight). */
  target?: string;
  /** For checks that ran: whether they passed. */
  succeeded?: boolean;
  /** The offered tool the call reached, when the model spelled its name otherwise. */
  tool?: string;
  /** For commands and checks that ran: the workspace files they changed. */
  changes?: CommandChanges;
}

export interface CheckpointOptions {
  tools: Tool[];
  workspace: Workspace;
  clock: Clock;
  policy: Policy;
  /** Who answers approval requests; none means every request is denied. */
  approver?: Approver;
  maxResultChars: number;
  /** false (--no-execute): every call is answered "not executed"; nothing is checked or run. */
  execute: boolean;
  todo?: TodoItem[];
  /** Tools that come and go during a session (MCP servers'), asked for at each call. */
  moreTools?: () => Tool[];
  /**
   * A sub-run's view (readOnly()): every call a rule allows runs read-only, and what would ask a
   * person is denied instead (a sub-run asks nobody).
   */
  readOnly?: boolean;
}

/** What a run lends its calls beyond the checkpoint's own: the sub-run behind `explore`. */
export type CallContext = Pick<ToolContext, "explore">;

export const INTERNAL_FAILURE = "The tool failed internally; try another approach.";

/**
 * The one reference monitor between a model's tool call and any effect, in a fixed order:
 * unknown tool → arguments → preflight → rules → approval → run → clip.
 */
export class Checkpoint {
  readonly todo: TodoItem[];
  /** The current run's undo journal: each approved write saves what it replaces there first. */
  journal: ChangeJournal | null = null;
  /** "Always" answers for tools bound to a definition digest: name and digest. */
  private readonly alwaysDigests = new Set<string>();

  constructor(private readonly options: CheckpointOptions) {
    this.todo = options.todo ?? [];
  }

  /**
   * The same checkpoint for a sub-run: the same workspace, rules (the session's own included, as
   * they grow) and result cap, only the tools named, in that order (MCP servers' none), a plan of its own, no
   * journal. Whatever a rule allows runs read-only, whatever the rule; a call that would ask a
   * person is denied.
   */
  readOnly(names: readonly string[]): Checkpoint {
    const tools = names.flatMap((name) => this.options.tools.filter((tool) => tool.name === name));
    return new Checkpoint({ ...this.options, tools, moreTools: undefined, approver: undefined, todo: [], readOnly: true });
  }

  /** The tools and result cap of another model's profile (the session's model was switched). */
  useTools({ tools, maxResultChars }: Pick<CheckpointOptions, "tools" | "maxResultChars">): void {
    Object.assign(this.options, { tools, maxResultChars });
  }

  /** A rule the person added for the rest of the session (the TUI's /allow). */
  allowForSession(rule: Rule): void {
    this.options.policy.allowForSession(rule);
  }

  private tools(): Tool[] {
    return this.options.moreTools ? [...this.options.tools, ...this.options.moreTools()] : this.options.tools;
  }

  /** What the model is shown: generated from the same schemas that validate its calls. */
  declarations(): ToolDeclaration[] {
    return this.tools().map((tool) => {
      const { $schema: _ignored, ...parameters } = tool.external?.parameters ?? (z.toJSONSchema(tool.schema) as Record<string, unknown>);
      return { name: tool.name, description: tool.description, parameters };
    });
  }

  /**
   * Why the call's arguments are refused before anything walks them (nested too deep, larger than
   * the tool's cap), or null. The run asks this first: even the repeat check walks the arguments.
   */
  screenArguments(call: ToolCallRequest): string | null {
    const tool = this.toolFor(call.name);
    return argumentsRefusal(tool?.name ?? JSON.stringify(call.name.slice(0, 60)), call.arguments, tool?.maxArgumentChars ?? ARGUMENT_LIMITS.max_chars);
  }

  /** `lent`: what the run lends the call's tool (the sub-run behind explore). */
  async handle(call: ToolCallRequest, signal: AbortSignal, lent: CallContext = {}): Promise<Verdict> {
    if (!this.options.execute) return refused(`${call.name.slice(0, 60)} was not executed: this run only records what the model asks for.`);
    const tool = this.toolFor(call.name);
    if (!tool) return refused(this.unknownTool(call.name));
    if (tool.name === call.name) return this.handleTool(tool, call, signal, lent);
    // A loose spelling reaches the tool; the verdict says which, and how the model wrote it.
    const verdict = await this.handleTool(tool, call, signal, lent);
    const spelling = `the model wrote ${JSON.stringify(call.name.slice(0, 60))}`;
    return { ...verdict, tool: tool.name, reason: verdict.reason ? `${verdict.reason} (${spelling})` : spelling };
  }

  /** The offered tool a call's name reaches (loosely spelled names included), if any. */
  private toolFor(name: string): Tool | undefined {
    const tools = this.tools();
    const offered = offeredName(name, tools.map((candidate) => candidate.name));
    return tools.find((candidate) => candidate.name === offered);
  }

  private async handleTool(tool: Tool, call: ToolCallRequest, signal: AbortSignal, lent: CallContext): Promise<Verdict> {
    let args: unknown;
    let plan: ToolPlan;
    try {
      args = validateArguments(tool, call.arguments);
      plan = await tool.plan(args, { workspace: this.options.workspace, clock: this.options.clock, signal, todo: this.todo, journal: this.journal ?? undefined, ...lent });
    } catch (error) {
      if (error instanceof Refusal) return refused(error.message);
      return failed(error);
    }

    const rules = this.options.policy.decide(tool.name, plan.paths ?? plan.target);
    if (rules.verdict === "deny") return denied(`${tool.name} is denied by the rule ${rules.rule}; do not retry it, choose another approach.`);
    let reason = "";
    // Neither a rule that lets a command write nor a configured check can promise undo where its changes cannot be journaled: then a person is asked (never in a sub-run, which writes nothing).
    const askAnyway = !this.options.readOnly && (!tool.needsApproval || (rules.verdict === "allow" && !rules.readOnly)) ? plan.askAnyway : undefined;
    if (tool.needsApproval && rules.verdict !== "allow" && this.options.readOnly) return denied(subRunAsksNobody(tool.name, rules));
    const mustAsk = (tool.needsApproval && rules.verdict !== "allow") || askAnyway !== undefined;
    if (mustAsk && !this.alwaysDigests.has(digestKey(tool))) {
      const answer = await this.ask(tool, args, plan, signal, (rules.verdict === "ask" ? rules.why : undefined) ?? askAnyway);
      if (!answer.approved) return denied(answer.sentence);
      // A "yes" given after the run was stopped or passed its deadline must not write anything.
      if (signal.aborted) return stopped(`${tool.name} was approved after the run had ended, so it was not run.`);
      if (answer.madeRule) reason = `The user allowed ${answer.madeRule} for the rest of this session.`;
    }

    // What a read-only rule allowed runs with the workspace read-only; anything a person approved may write (journaled).
    plan.readOnly = (rules.verdict === "allow" && rules.readOnly && !reason) || this.options.readOnly === true;
    try {
      const output = await plan.execute();
      const finished = tool.name === "finish" ? { summary: (args as { summary: string }).summary } : undefined;
      // The rule heads the result too: the person sees it in the transcript, the model learns what no longer asks.
      const result = reason ? `${reason}\n${output}` : output;
      return { decision: "allowed", reason, content: clip(result, this.options.maxResultChars), finished, target: plan.target, succeeded: plan.succeeded, changes: plan.changes };
    } catch (error) {
      if (error instanceof Refusal) return refused(error.message);
      if (error instanceof ToolFailure) return { decision: "error", reason: error.reason, content: clip(error.message, this.options.maxResultChars), target: plan.target, changes: plan.changes };
      return failed(error);
    }
  }

  /** Approved (with the session rule an "always" made), or the sentence explaining the denial. */
  private async ask(tool: Tool, args: unknown, plan: ToolPlan, signal: AbortSignal, ruleWhy?: string): Promise<{ approved: true; madeRule?: string } | { approved: false; sentence: string }> {
    const no = (sentence: string) => ({ approved: false as const, sentence });
    const target = plan.target && plan.target.length > 200 ? `${plan.target.slice(0, 199)}…` : plan.target;
    const who = `${tool.name}${target ? ` on ${target}` : ""}`;
    if (!this.options.approver) {
      // Headless: the sentence says why a rule's allow was not enough (no read-only sandbox, no journal), if that is why.
      return no(ruleWhy ? `${who} needs approval (${ruleWhy}) and no one is here to give it; do not retry it, tell the user.` : `${who} needs approval and no rule allows it; do not retry it, tell the user what you wanted to change.`);
    }
    let answer: ApprovalAnswer;
    try {
      answer = await this.options.approver({
        tool: tool.name,
        arguments: args,
        target: plan.target,
        change: plan.change,
        description: tool.approval?.description,
        details: plan.details,
        sessionRule: plan.sessionRule,
        why: tool.approval?.why ?? ruleWhy ?? `${tool.name} ${tool.name === RUN_COMMAND ? "runs a command" : "changes files"} and matches no allow rule`,
        signal,
      });
    } catch {
      // An approval that fails (a closed prompt, a cancelled run) is a "no", never a crashed run.
      return no(`${who} was not approved (the approval request failed); do not retry it unchanged.`);
    }
    if (answer === "always") {
      if (tool.approval) this.alwaysDigests.add(digestKey(tool));
      else if (plan.sessionRule) {
        this.options.policy.allowForSession(parseRule(plan.sessionRule, [tool.name]));
        return { approved: true, madeRule: plan.sessionRule };
      } else if (plan.sessionRule === undefined) this.options.policy.allowForSession({ text: tool.name, tool: tool.name, glob: null });
      return { approved: true };
    }
    return answer === "yes" ? { approved: true } : no(`The user did not approve ${who}; do not retry it unchanged.`);
  }

  private unknownTool(name: string): string {
    const names = this.tools().map((tool) => tool.name);
    return names.length
      ? `There is no tool named ${JSON.stringify(name.slice(0, 60))}; the tools are: ${names.join(", ")}.`
      : `There is no tool named ${JSON.stringify(name.slice(0, 60))}; this run offers no tools, answer in text.`;
  }
}

/** Why a sub-run did not run a call that would ask a person. */
function subRunAsksNobody(tool: string, rules: PolicyVerdict): string {
  const why = rules.verdict === "ask" && rules.why ? ` (${rules.why})` : "";
  return `${tool} is not run in a sub-run: it explores read-only and asks nobody, and no rule allows this call${why}; answer with what the other tools show.`;
}

/** Another party's tool is "always" allowed only while its definition stays the one approved. */
function digestKey(tool: Tool): string {
  return tool.approval ? `${tool.name}\u0000${tool.approval.digest}` : "";
}

function refused(reason: string): Verdict {
  return { decision: "refused", reason, content: `Refused: ${reason}` };
}

function denied(reason: string): Verdict {
  return { decision: "denied", reason, content: `Denied: ${reason}` };
}

function stopped(reason: string): Verdict {
  return { decision: "stopped", reason, content: `Not run: ${reason}` };
}

function failed(error: unknown): Verdict {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { decision: "error", reason: "the tool failed internally (details in the log)", content: INTERNAL_FAILURE, detail };
}
