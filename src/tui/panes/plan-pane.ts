import type { Widgets } from "../blessed.ts";
import { updateContent } from "../screen.ts";
import { Pane } from "./pane.ts";
import { safeTagged } from "../sanitize.ts";
import { paint } from "../theme.ts";
import type { Rect } from "../layout.ts";

const MARK = { pending: "[ ]", in_progress: "[~]", done: "[x]" } as const;
const COLOR = { pending: "white", in_progress: "yellow", done: "green" } as const;

/** The model's plan: the todo list it keeps with update_todo, state rather than conversation. */
export class PlanPane extends Pane {

  constructor(parent: Widgets.Screen, rect: Rect) {
    super(parent, rect, "plan");
  }


  draw(items: ReadonlyArray<{ text: string; status: string }>): void {
    const width = Math.max(4, this.innerWidth() - 4);
    updateContent(
      this.box,
      items.length
        ? items
            .map((item) => {
              const status = (item.status in MARK ? item.status : "pending") as keyof typeof MARK;
              const text = item.text.length > width ? item.text.slice(0, width - 1) + "…" : item.text;
              return paint(COLOR[status], `${MARK[status]} ${safeTagged(text)}`);
            })
            .join("\n")
        : paint("gray", "(no plan yet: the model keeps one with update_todo)"),
    );
  }
}
