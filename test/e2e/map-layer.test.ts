// The TUI's system-prompt overlay (p, /prompt) shows the map layer a run would start with, where
// config repo_map.layer asks for one.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { E2E_SKIPPED, expectCleanExit, useTerminal } from "../helpers/terminal.ts";

describe.skipIf(E2E_SKIPPED)("the compiled binary in a real terminal", () => {
  const { start, scripted } = useTerminal();

  test("p shows the map layer after the others when repo_map.layer is on", async () => {
    const { workspace, args } = scripted("map-layer", [{ content: "unused" }]);
    const config = path.join(workspace, "glassbox.json");
    fs.writeFileSync(config, JSON.stringify({ ...JSON.parse(fs.readFileSync(config, "utf8")), repo_map: { layer: true } }));
    const pane = start("map-layer", args);
    await pane.waitFor("Type a task", "the first frame");
    pane.keys("Tab");
    pane.keys("p");
    const prompt = await pane.waitFor("──── layer map (map, ", "the map layer in the prompt overlay");
    expect(prompt).toContain("The code's main definitions");
    pane.keys("Escape");
    await pane.waitFor((text) => !text.includes("system prompt — Esc closes"), "the prompt to close");
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 20_000);
});
