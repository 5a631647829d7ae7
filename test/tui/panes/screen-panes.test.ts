import { expect, test } from "bun:test";
import { layout, type Rect } from "../../../src/tui/layout.ts";
import { ScreenPanes } from "../../../src/tui/panes/screen-panes.ts";
import { fakeTerminal } from "../../helpers/fake-terminal.ts";

const at = (box: { left: unknown; top: unknown; width: unknown; height: unknown }): Rect => ({ left: box.left as number, top: box.top as number, width: box.width as number, height: box.height as number });

test("each pane and the status line go where the layout says; on a narrow screen the side column is hidden, and comes back", () => {
  const { screen } = fakeTerminal();
  const wide = layout(160, 45, 2);
  const narrow = layout(80, 24, 2);
  const panes = new ScreenPanes(screen, wide);
  const placed = () => ({ transcript: at(panes.transcript.box), verdicts: at(panes.verdicts.box), meters: at(panes.meters.box), plan: at(panes.plan.box), layers: at(panes.layers.box), status: at(panes.status) });
  expect(placed()).toEqual({ transcript: wide.transcript, verdicts: wide.verdicts, meters: wide.meters!, plan: wide.plan!, layers: wide.layers!, status: wide.status });
  panes.place(narrow);
  const hidden = { left: 0, top: 0, width: 1, height: 0 };
  expect(placed()).toEqual({ transcript: narrow.transcript, verdicts: narrow.verdicts, meters: hidden, plan: hidden, layers: hidden, status: narrow.status });
  panes.place(wide);
  expect(placed()).toEqual({ transcript: wide.transcript, verdicts: wide.verdicts, meters: wide.meters!, plan: wide.plan!, layers: wide.layers!, status: wide.status });
});
