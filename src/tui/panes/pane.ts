import { blessed, type Widgets } from "../blessed.ts";
import type { Rect } from "../layout.ts";

/**
 * A bordered, labelled box that the layout places. Panes draw with tags on: everything
 * untrusted inside them is escaped first (sanitize.ts).
 */
export class Pane {
  readonly box: Widgets.BoxElement;

  constructor(parent: Widgets.Screen, rect: Rect, label: string, focusable = false) {
    const border = { fg: "gray" };
    this.box = blessed.box({ parent, ...rect, border: "line", label: ` ${label} `, tags: true, wrap: false, style: focusable ? { border, focus: { border: { fg: "cyan" } } } : { border } });
  }

  place(rect: Rect): void {
    Object.assign(this.box, { left: rect.left, top: rect.top, width: rect.width, height: rect.height });
  }

  /** Rows inside the border. */
  protected innerHeight(): number {
    return Math.max(1, (this.box.height as number) - 2);
  }

  /** Columns inside the border. */
  protected innerWidth(): number {
    return Math.max(1, (this.box.width as number) - 2);
  }
}
