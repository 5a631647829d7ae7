/**
 * End to end, on the compiled binary in a real terminal: the sandbox badge says what confines the
 * checks, and an approval left open past the deadline is answered "no" for the person.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { STATUS, E2E_SKIPPED, useTerminal } from "../helpers/terminal.ts";

describe.skipIf(E2E_SKIPPED)("the sandbox and the deadline in the TUI", () => {
  const term = useTerminal();
  const { start, scripted } = term;

  test.if(process.platform === "linux")("the status line shows the sandbox badge: bwrap, net off", async () => {
    const { args } = scripted("badge-bwrap", [{ content: "unused" }]);
    const pane = start("badge-bwrap", args);
    const first = await pane.waitFor("Type a task", "the first frame");
    expect(STATUS(first)).toContain("sandbox: bwrap · net off");
    expect(first).not.toContain("UNSANDBOXED");
    pane.close();
  }, 15_000);

  test("with nothing to confine the checks, the badge and the transcript say UNSANDBOXED and why", async () => {
    const { args } = scripted("badge-none", [{ content: "unused" }]);
    const pane = start("badge-none", args, { GLASSBOX_SANDBOX_KINDS: "none" });
    const first = await pane.waitFor("Type a task", "the first frame");
    expect(STATUS(first)).toMatch(/UNSANDBOXED: \S/);
    expect(first).toMatch(/Checks run UNSANDBOXED: .*left out by GLASSBOX_SANDBOX_KINDS/);
    pane.close();
  }, 15_000);

  test("the deadline closes an open approval as a no; a y pressed after it writes nothing", async () => {
    const { workspace, args } = scripted("late-approval", [
      { content: "", tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "LATE.md", content: "too late" } }] },
      { content: "never reached" },
    ]);
    const pane = start("late-approval", [...args, "--limit", "deadline_seconds=3"]);
    await pane.waitFor("Type a task", "the first frame");
    pane.type("write it");
    pane.keys("Enter");
    await pane.waitFor("approval needed", "the approval modal");
    const done = await pane.waitFor("stopped: deadline", "the deadline to stop the run", 15_000);
    expect(done).not.toContain("approval needed");
    expect(done).toMatch(/│1 write_file .* denied/);
    pane.keys("y");
    await Bun.sleep(300);
    expect(fs.existsSync(path.join(workspace, "LATE.md"))).toBe(false);
    pane.close();
  }, 30_000);
});
