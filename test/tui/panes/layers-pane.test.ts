// The layers pane: each layer's name, origin, digest, size and state; the map layer (config
// repo_map.layer) after the others, never pinned, audited for hidden characters as `glassbox audit` does.
import { expect, test } from "bun:test";
import { makeLayer } from "../../../src/prompt/layers.ts";
import { layout } from "../../../src/tui/layout.ts";
import { LayersPane, mapLayerRow } from "../../../src/tui/panes/layers-pane.ts";
import { fakeTerminal } from "../../helpers/fake-terminal.ts";

const plain = (written: string) => written.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");

test("the map layer is listed after the others, unpinned; with hidden characters, it says so", () => {
  const { screen, frame } = fakeTerminal();
  const pane = new LayersPane(screen, layout(160, 45, 3).layers!);
  const base = { ...makeLayer("base", "builtin", "You are glassbox."), state: "locked" as const };
  const map = makeLayer("map", "map", "The code's main definitions, most used first:\nsrc/a.ts:\n  1: export function a()");
  expect(mapLayerRow(map).state).toBe("unpinned");
  const written = plain(frame(() => pane.draw([base, mapLayerRow(map)])));
  expect(written).toContain(`base builtin ${base.digest}`);
  expect(written).toContain(`map map ${map.digest} ${map.chars}c unpinned`);
  expect(written.indexOf("map map")).toBeGreaterThan(written.indexOf("base builtin"));
  // A zero-width space in a definition's name: the row says hidden text, as audit --check would.
  const poisoned = makeLayer("map", "map", "src/a.ts:\n  1: export function a\u200b()");
  expect(mapLayerRow(poisoned).state).toBe("hidden text");
  expect(plain(frame(() => pane.draw([base, mapLayerRow(poisoned)])))).toContain("hidden text");
});
