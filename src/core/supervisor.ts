import type { AgentEvent } from "../protocol/events.ts";
import type { Limits } from "../protocol/limits.ts";
import type { BudgetWarning, StallRules } from "./discipline.ts";
import { StallDetector } from "./stall.ts";
import { VerifyGate, type GateDecision } from "./gate.ts";
import type { Verdict } from "./checkpoint.ts";
import type { TodoItem } from "../tools/tool.ts";

/** What the supervisor says after a call or a turn: events for the stream, notes for the model. */
export interface Said {
  events: AgentEvent[];
  notes: string[];
}

export interface SupervisorOptions {
  limits: Limits;
  /** null: the stall rules are switched off. */
  stall: StallRules | null;
  budgetWarning: BudgetWarning;
  /** The check that must pass after the last edit before `finish` (config `verify`). */
  verify?: string;
  todo: TodoItem[];
}

const EDIT_TOOLS = new Set(["write_file", "edit_file", "delete_file", "move_file"]);

/**
 * The loop's discipline, kept out of the loop itself: stall rules, the verification gate, the
 * budget warnings and the plan state. Notes for the model are delivered by the loop after all of
 * a turn's tool results (a message between a call and its result breaks chat APIs).
 */
export class Supervisor {
  private readonly stall: StallDetector | null;
  private readonly gate: VerifyGate | null;
  private readonly warned = new Set<"deadline" | "tokens">();

  constructor(private readonly options: SupervisorOptions) {
    // The warning comes one call before the repeat limit stops the run (and never on a first call).
    this.stall = options.stall ? new StallDetector(options.stall, Math.max(2, options.limits.max_repeat)) : null;
    this.gate = options.verify ? new VerifyGate(options.verify) : null;
  }

  /** Before `finish` reaches the checkpoint: null when no gate is configured. */
  checkFinish(): GateDecision | null {
    return this.gate?.decide() ?? null;
  }

  afterCall(tool: string, key: string, verdict: Verdict): Said {
    const said: Said = { events: [], notes: [] };
    const allowed = verdict.decision === "allowed";
    if (allowed && EDIT_TOOLS.has(tool)) this.gate?.edited();
    if (allowed && tool === "run_check" && verdict.target === this.gate?.check) this.gate?.checked(verdict.succeeded === true);
    if (allowed && tool === "update_todo") said.events.push({ kind: "todo", items: this.options.todo.map((item) => ({ ...item })) });
    const stall = this.stall?.observe({ tool, key, result: verdict.content, allowed, target: verdict.target });
    if (stall) {
      said.events.push({ kind: "stall", rule: stall.rule, message: stall.message });
      said.notes.push(stall.message);
    }
    return said;
  }

  /** After a turn: one warning each when the deadline or the token budget is three-quarters spent. */
  afterTurn(elapsedSeconds: number, tokens: number): Said {
    const said: Said = { events: [], notes: [] };
    const { ratio } = this.options.budgetWarning;
    const { deadline_seconds, max_tokens } = this.options.limits;
    const percent = Math.round(ratio * 100);
    if (!this.warned.has("deadline") && elapsedSeconds >= ratio * deadline_seconds) {
      this.warned.add("deadline");
      said.events.push({ kind: "budget_warning", budget: "deadline" });
      said.notes.push(`${percent}% of the time for this task is used: wrap up now, verify your change, and finish.`);
    }
    if (max_tokens > 0 && !this.warned.has("tokens") && tokens >= ratio * max_tokens) {
      this.warned.add("tokens");
      said.events.push({ kind: "budget_warning", budget: "tokens" });
      said.notes.push(`${percent}% of the token budget for this task is used: wrap up now, verify your change, and finish.`);
    }
    return said;
  }
}
