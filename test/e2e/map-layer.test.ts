// The TUI's system-prompt overlay (p, /prompt) and its layers pane show the map layer a run would
// start with, where config repo_map.layer asks for one; after a run, the one it started with.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { E2E_SKIPPED, expectCleanExit, useTerminal } from "../helpers/terminal.ts";

describe.skipIf(E2E_SKIPPED)("the compiled binary in a real terminal", () => {
  const { start, scripted } = useTerminal();

  test("p shows the map layer after the others when repo_map.layer is on, and the layers pane lists it", async () => {
    const { workspace, args } = scripted("map-layer", [{ content: "done" }]);
    const config = path.join(workspace, "glassbox.json");
    fs.writeFileSync(config, JSON.stringify({ ...JSON.parse(fs.readFileSync(config, "utf8")), repo_map: { layer: true } }));
    const pane = start("map-layer", args);
    await pane.waitFor("Type a task", "the first frame");
    // The layers pane: the map's row after the session's layers, never pinned.
    const listed = await pane.waitFor(/map map [0-9a-f]{16} \d+c unpinned/, "the map layer in the layers pane");
    const row = listed.split("\n").find((line) => /map map [0-9a-f]{16}/.test(line))!;
    const digest = /map map ([0-9a-f]{16})/.exec(row)![1]!;
    // After a run, the row is the layer the run started with (its run_start names the digest): here
    // a new file, written after the TUI started, is in it.
    fs.writeFileSync(path.join(workspace, "added.ts"), "export function addedAfterStart(): number {\n  return 1;\n}\n");
    pane.type("say done");
    pane.keys("Enter");
    await pane.waitFor(/stopped: \w+/, "the run to end", 15_000);
    const log = fs.readdirSync(path.join(workspace, ".glassbox", "runs")).map((name) => fs.readFileSync(path.join(workspace, ".glassbox", "runs", name), "utf8")).join("\n");
    const started = /"name":"map","origin":"map","digest":"([0-9a-f]{16})"/.exec(log)![1]!;
    expect(started).not.toBe(digest);
    await pane.waitFor(`map map ${started}`, "the run's map layer in the layers pane");
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
