import { blessed, updateContent, type Widgets } from "../blessed.ts";
import { level, meterLine, type Meter } from "../meters.ts";
import { LEVEL_COLOR, paint } from "../theme.ts";
import type { Rect } from "../layout.ts";

/** The budgets, each a bar that turns yellow then red as it nears its limit. */
export class MetersPane {
  readonly box: Widgets.BoxElement;

  constructor(parent: Widgets.Screen, rect: Rect) {
    this.box = blessed.box({ parent, ...rect, border: "line", label: " budgets ", tags: true, wrap: false, style: { border: { fg: "gray" } } });
  }

  place(rect: Rect): void {
    Object.assign(this.box, { left: rect.left, top: rect.top, width: rect.width, height: rect.height });
  }

  draw(meters: Meter[]): void {
    const width = Math.max(10, (this.box.width as number) - 2);
    updateContent(this.box, meters.map((meter) => paint(LEVEL_COLOR[level(meter)], meterLine(meter, width))).join("\n"));
  }
}
