import type { Widgets } from "../blessed.ts";
import { updateContent } from "../screen.ts";
import { Pane } from "./pane.ts";
import { level, meterLine, type Meter } from "../meters.ts";
import { LEVEL_COLOR, paint } from "../theme.ts";
import type { Rect } from "../layout.ts";

/**
 * The budgets, each a bar that turns yellow then red as it nears its limit. Each message starts a
 * run with a fresh budget, and the title says so.
 */
export class MetersPane extends Pane {
  private runs = 0;

  constructor(parent: Widgets.Screen, rect: Rect) {
    super(parent, rect, "budgets per run");
  }

  startRun(): void {
    this.box.setLabel(` budgets per run · run ${++this.runs} `);
  }

  draw(meters: Meter[]): void {
    const width = Math.max(10, this.innerWidth());
    updateContent(this.box, meters.map((meter) => paint(LEVEL_COLOR[level(meter)], meterLine(meter, width))).join("\n"));
  }
}
