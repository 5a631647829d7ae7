import type { StallRules } from "./discipline.ts";

export type StallRule = "same_call" | "edit_churn" | "no_progress";

export interface Stall {
  rule: StallRule;
  message: string;
}

/** One answered call, as the detector sees it. */
export interface ObservedCall {
  tool: string;
  /** Tool name + canonical arguments. */
  key: string;
  /** What the model was sent back. */
  result: string;
  allowed: boolean;
  /** The path an edit touched. */
  target?: string;
}

const EDIT_TOOLS = new Set(["write_file", "edit_file", "delete_file", "move_file"]);
const LOOK_TOOLS = new Set(["read_file", "search_text", "find_files", "list_files"]);

/**
 * Fixed rules, no model call: the same call with the same result again and again, one file
 * edited over and over, reading without ever changing anything. Each fires a short message that
 * tells the model what it is doing and to change course.
 */
export class StallDetector {
  private last: { key: string; result: string; count: number } | null = null;
  private editsByFile = new Map<string, number>();
  private looksSinceEdit = 0;

  /** `sameCallAt`: how many identical calls in a row fire the warning (one before the repeat stop). */
  constructor(
    private readonly rules: StallRules,
    private readonly sameCallAt: number,
  ) {}

  observe(call: ObservedCall): Stall | null {
    const same = this.last && this.last.key === call.key && this.last.result === call.result;
    this.last = { key: call.key, result: call.result, count: same ? this.last!.count + 1 : 1 };
    if (this.last.count === this.sameCallAt) {
      return {
        rule: "same_call",
        message: `You called ${call.tool} with the same arguments ${this.last.count} times in a row and got the same result each time; repeating it will not change the answer, so change course: other arguments, another tool, or finish with what you know.`,
      };
    }
    if (!call.allowed) return null;
    if (EDIT_TOOLS.has(call.tool)) {
      this.looksSinceEdit = 0;
      const path = call.target ?? "";
      const edits = (this.editsByFile.get(path) ?? 0) + 1;
      this.editsByFile.set(path, edits === this.rules.edits_per_file ? 0 : edits);
      if (edits === this.rules.edits_per_file) {
        return {
          rule: "edit_churn",
          message: `You have edited ${path} ${edits} times; stop patching it piece by piece: read the whole file and the task again, then make one deliberate change.`,
        };
      }
    } else if (LOOK_TOOLS.has(call.tool)) {
      this.looksSinceEdit++;
      if (this.looksSinceEdit === this.rules.reads_without_edit) {
        this.looksSinceEdit = 0;
        return {
          rule: "no_progress",
          message: `You have read or searched ${this.rules.reads_without_edit} times in a row without changing anything; decide now: make the change the task needs, or finish with what you found.`,
        };
      }
    }
    return null;
  }
}
