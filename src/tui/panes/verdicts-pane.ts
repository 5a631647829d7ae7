import type { EventOf } from "../../protocol/events.ts";
import type { Widgets } from "../blessed.ts";
import { updateContent } from "../screen.ts";
import { Pane } from "./pane.ts";
import { safeTagged, sanitize } from "../sanitize.ts";
import { DECISION_COLOR, paint } from "../theme.ts";
import type { Rect } from "../layout.ts";

const KEPT = 500;

/** Before the step of a sub-run's call (explore): the call is the sub-run's, not the run's. */
export const SUB_RUN_MARK = "↳";

type ToolCall = EventOf<"tool_call">;

/** A line of the pane, and the call it shows (null for a notice). */
interface Entry {
  line: string;
  call: ToolCall | null;
}

/**
 * One line per tool call: step, tool, short arguments, the decision in its colour, the reason.
 * With the focus it is a list of the calls: the newest is selected when the focus arrives, ↑/↓
 * (PgUp/PgDn, Home/End) choose another, and Enter opens its result (selectedResult()).
 */
export class VerdictsPane extends Pane {
  private entries: Entry[] = [];
  /** Lines scrolled up from the bottom. */
  private offset = 0;
  /** The entry of the selected call, while the pane has the focus. */
  private selected: number | null = null;

  constructor(parent: Widgets.Screen, rect: Rect) {
    super(parent, rect, "tool verdicts", true);
    // However the focus comes (Tab, a click), the newest call is selected.
    this.box.on("focus", () => (this.selected = this.calls().at(-1) ?? null));
    this.box.on("blur", () => (this.selected = null));
  }

  add(call: ToolCall): void {
    // The decision must stay on screen: the arguments get at most what the pane's width leaves.
    // A call recovered from the reply's text is marked: the model did not use the protocol's field.
    // A sub-run's call is marked as its own: ↳ before its step.
    const tool = call.from_text ? `${call.tool} (text)` : call.tool;
    const step = call.sub_run !== undefined ? `${SUB_RUN_MARK}${call.step}` : String(call.step);
    const room = this.innerWidth() - `${step} ${tool}  ${call.decision}`.length;
    const args = shorten(call.arguments.replace(/\s+/g, " "), Math.max(8, Math.min(40, room)));
    const reason = call.reason ? ` ${shorten(call.reason, 200)}` : "";
    this.push(`${step} ${safeTagged(tool)} ${safeTagged(args)} ${paint(DECISION_COLOR[call.decision], call.decision)}${safeTagged(reason)}`, call);
  }

  /** A line that is not a tool call (a stall warning, a gate decision, a notice). */
  note(text: string, color = "magenta"): void {
    this.push(paint(color, safeTagged(text)), null);
  }

  /**
   * A key while the pane has the focus: ↑/↓ move the selection a call, PgUp/PgDn a page, Home/End
   * to the first or last. Whether the key was one of those.
   */
  key(name: string): boolean {
    const calls = this.calls();
    const at = this.selected === null ? calls.length : calls.indexOf(this.selected);
    const page = Math.max(1, this.innerHeight() - 1);
    const moves: Record<string, number> = { up: -1, down: 1, pageup: -page, pagedown: page, home: -Infinity, end: Infinity };
    const move = moves[name];
    if (move === undefined) return false;
    if (calls.length) this.selected = calls[Math.max(0, Math.min(calls.length - 1, at + move))]!;
    return true;
  }

  /** The selected call's result exactly as the model received it, for the overlay (which escapes it), or null. */
  selectedResult(): { title: string; text: string } | null {
    const call = this.selected === null ? null : this.entries[this.selected]?.call;
    if (!call) return null;
    const whose = call.sub_run !== undefined ? "sub-run " : "";
    return { title: `${whose}step ${call.step} ${sanitize(call.tool)}: ${call.decision}, ${call.result_chars} chars as the model received them`, text: call.result };
  }

  draw(): void {
    const height = this.innerHeight();
    // The selected line stays in view.
    if (this.selected !== null) {
      const fromBottom = this.entries.length - 1 - this.selected;
      this.offset = Math.min(fromBottom, Math.max(this.offset, fromBottom - height + 1));
    }
    const end = this.entries.length - this.offset;
    const start = Math.max(0, end - height);
    const lines = this.entries.slice(start, end).map((entry, i) => (start + i === this.selected ? `{inverse}${entry.line}{/inverse}` : entry.line));
    updateContent(this.box, lines.join("\n"));
  }

  /** Entries that are calls, by their index. */
  private calls(): number[] {
    return this.entries.flatMap((entry, index) => (entry.call ? [index] : []));
  }

  private push(line: string, call: ToolCall | null): void {
    this.entries.push({ line, call });
    if (this.entries.length <= KEPT) return;
    this.entries.shift();
    if (this.selected !== null) this.selected = this.selected > 0 ? this.selected - 1 : null;
  }
}

function shorten(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}
