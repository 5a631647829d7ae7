import { blessed, type Widgets } from "../blessed.ts";
import type { Layout } from "../layout.ts";
import { LayersPane } from "./layers-pane.ts";
import { MetersPane } from "./meters-pane.ts";
import { PlanPane } from "./plan-pane.ts";
import { TranscriptPane } from "./transcript-pane.ts";
import { VerdictsPane } from "./verdicts-pane.ts";
import { SubRunEntries } from "../event-view.ts";

/** Where a pane goes that a narrow terminal has no room for: nowhere to be seen. */
const HIDDEN = { left: 0, top: 0, width: 1, height: 0 };

/** The panes and the status line, where a layout puts them. */
export class ScreenPanes {
  readonly transcript: TranscriptPane;
  readonly verdicts: VerdictsPane;
  readonly meters: MetersPane;
  readonly layers: LayersPane;
  readonly plan: PlanPane;
  readonly status: Widgets.BoxElement;
  readonly subRuns = new SubRunEntries();

  constructor(screen: Widgets.Screen, l: Layout) {
    this.transcript = new TranscriptPane(screen, l.transcript);
    this.verdicts = new VerdictsPane(screen, l.verdicts);
    this.meters = new MetersPane(screen, l.meters ?? HIDDEN);
    this.layers = new LayersPane(screen, l.layers ?? HIDDEN);
    this.plan = new PlanPane(screen, l.plan ?? HIDDEN);
    this.status = blessed.box({ parent: screen, ...l.status, tags: true, style: { bg: "blue", fg: "white" } });
  }

  /** After a resize, a taller input or a change in the layers: each goes where the new layout says. */
  place(l: Layout): void {
    this.transcript.place(l.transcript);
    this.verdicts.place(l.verdicts);
    this.meters.place(l.meters ?? HIDDEN);
    this.layers.place(l.layers ?? HIDDEN);
    this.plan.place(l.plan ?? HIDDEN);
    Object.assign(this.status, l.status);
  }
}
