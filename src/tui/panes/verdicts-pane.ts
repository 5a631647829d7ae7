import type { EventOf } from "../../core/events.ts";
import { updateContent, type Widgets } from "../blessed.ts";
import { Pane } from "./pane.ts";
import { safeTagged } from "../sanitize.ts";
import { DECISION_COLOR, paint } from "../theme.ts";
import type { Rect } from "../layout.ts";

const KEPT = 500;

/** One line per tool call: step, tool, short arguments, the decision in its colour, the reason. */
export class VerdictsPane extends Pane {
  private lines: string[] = [];
  private offset = 0;

  constructor(parent: Widgets.Screen, rect: Rect) {
    super(parent, rect, "tool verdicts", true);
  }


  add(call: EventOf<"tool_call">): void {
    // The decision must stay on screen: the arguments get at most what the pane's width leaves.
    const room = this.innerWidth() - `${call.step} ${call.tool}  ${call.decision}`.length;
    const args = shorten(call.arguments.replace(/\s+/g, " "), Math.max(8, Math.min(40, room)));
    const reason = call.reason ? ` ${shorten(call.reason, 200)}` : "";
    this.push(`${call.step} ${safeTagged(call.tool)} ${safeTagged(args)} ${paint(DECISION_COLOR[call.decision], call.decision)}${safeTagged(reason)}`);
  }

  /** A line that is not a tool call (a stall warning, a gate decision, a notice). */
  note(text: string, color = "magenta"): void {
    this.push(paint(color, safeTagged(text)));
  }

  scroll(delta: number): void {
    this.offset = Math.max(0, Math.min(this.lines.length, this.offset - delta));
  }

  draw(): void {
    const height = this.innerHeight();
    const end = this.lines.length - this.offset;
    updateContent(this.box, this.lines.slice(Math.max(0, end - height), end).join("\n"));
  }

  private push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > KEPT) this.lines.shift();
  }
}

function shorten(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}
