/**
 * End to end on the compiled binary in tmux: delete_file asks with a diff that shows the file
 * going, move_file with what is renamed to what (and what it overwrites), and `u` puts both back
 * byte for byte, CRLF and the executable bit included. The transcript's tool lines keep their
 * right border.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { E2E_SKIPPED, expectCleanExit, expectRightBorders, useTerminal } from "../helpers/terminal.ts";

describe.skipIf(E2E_SKIPPED)("delete_file and move_file in a real terminal", () => {
  const { start, scripted } = useTerminal();

  test("each asks with its diff; u restores the deleted file and moves the other back, bytes and mode", async () => {
    const { workspace, args } = scripted("delete-move", [
      { content: "Removing the old readme.", tool_calls: [{ id: "d1", name: "delete_file", arguments: { path: "README.md" } }] },
      { content: "", tool_calls: [{ id: "m1", name: "move_file", arguments: { from: "bin/release.sh", to: "scripts/release.sh" } }] },
      { content: "Both done." },
    ]);
    const script = Buffer.from("#!/bin/sh\r\necho release\r\n");
    fs.mkdirSync(path.join(workspace, "bin"));
    fs.writeFileSync(path.join(workspace, "bin/release.sh"), script);
    fs.chmodSync(path.join(workspace, "bin/release.sh"), 0o755);
    const readme = fs.readFileSync(path.join(workspace, "README.md"));
    const firstLine = readme.toString().split("\n")[0]!;

    const pane = start("delete-move", args);
    await pane.waitFor("Type a task", "the first frame");
    pane.type("tidy up");
    pane.keys("Enter");
    const deleting = await pane.waitFor("delete_file on README.md", "the delete's approval");
    expect(deleting).toContain("(deleted)");
    expect(deleting).toContain(`-${firstLine}`);
    pane.keys("y");
    const moving = await pane.waitFor("move_file on bin/release.sh → scripts/release.sh", "the move's approval");
    expect(moving).toMatch(/│ *│bin\/release\.sh → scripts\/release\.sh +│/);
    expect(moving).toContain("(the content moves unchanged)");
    expect(moving).not.toContain("+++");
    pane.keys("y");
    const done = await pane.waitFor("stopped: completed", "the run to end");
    expectRightBorders(done, "▸ delete_file");
    expectRightBorders(done, "▸ move_file");
    expect(fs.existsSync(path.join(workspace, "README.md"))).toBe(false);
    expect(fs.readFileSync(path.join(workspace, "scripts/release.sh"))).toEqual(script);
    expect(fs.statSync(path.join(workspace, "scripts/release.sh")).mode & 0o777).toBe(0o755);

    pane.keys("u");
    const asked = await pane.waitFor("y undo these changes", "the undo question");
    expect(asked).toContain("would restore README.md");
    expect(asked).toContain("would restore bin/release.sh");
    expect(asked).toContain("would remove scripts/release.sh, which the run created");
    pane.keys("y");
    const undone = await pane.waitFor("│log: .glassbox/undo/", "the undo's result");
    expect(undone).toContain("│  restored README.md");
    expect(undone).toContain("│  restored bin/release.sh");
    expect(fs.readFileSync(path.join(workspace, "README.md"))).toEqual(readme);
    expect(fs.readFileSync(path.join(workspace, "bin/release.sh"))).toEqual(script);
    expect(fs.statSync(path.join(workspace, "bin/release.sh")).mode & 0o777).toBe(0o755);
    expect(fs.existsSync(path.join(workspace, "scripts/release.sh"))).toBe(false);
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 60_000);

  test("a move that overwrites says so, and shows the file it replaces against the one moved there", async () => {
    const { workspace, args } = scripted("move-over", [
      { content: "", tool_calls: [{ id: "m1", name: "move_file", arguments: { from: "README.md", to: "docs/README.md", overwrite: true } }] },
      { content: "Moved." },
    ]);
    fs.mkdirSync(path.join(workspace, "docs"));
    fs.writeFileSync(path.join(workspace, "docs/README.md"), "an old copy\n");
    const pane = start("move-over", args);
    await pane.waitFor("Type a task", "the first frame");
    pane.type("move the readme");
    pane.keys("Enter");
    const moving = await pane.waitFor("move_file on README.md → docs/README.md", "the move's approval");
    expect(moving).toContain("README.md → docs/README.md (overwrites docs/README.md)");
    expect(moving).toContain("--- docs/README.md  now");
    expect(moving).toContain("-an old copy");
    pane.keys("n");
    await pane.waitFor("stopped: completed", "the run to end");
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 30_000);
});
