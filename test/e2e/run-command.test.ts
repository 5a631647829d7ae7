/**
 * End to end on the compiled binary in tmux: the model asks to run a command; the approval shows
 * the argv, the folder it starts in, the sandbox and the network, and that undo restores its
 * writes; `a` names the rule it adds (the command's first two words), the second command
 * with those words runs without asking, and the verdicts pane says which rule was made.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { E2E_SKIPPED, STATUS, useTerminal } from "../helpers/terminal.ts";

const QUESTION = (text: string) => text.includes("┌─ approval needed ") && text.includes("a always allow run_command:cp -v* this session");

describe.skipIf(E2E_SKIPPED)("run_command's approval, in a real terminal", () => {
  const { start, scripted } = useTerminal();

  test("the modal shows what will run and where; a allows cp -v for the session and says so", async () => {
    const { workspace, args } = scripted("command", [
      { content: "Copying.", tool_calls: [{ id: "r1", name: "run_command", arguments: { argv: ["cp", "-v", "version.ts", "version.copy.ts"], cwd: "src" } }] },
      { content: "", tool_calls: [{ id: "r2", name: "run_command", arguments: { argv: ["cp", "-v", "README.md", "README.copy.md"] } }] },
      { content: "Both copied." },
    ]);
    const pane = start("command", args);
    await pane.waitFor("Type a task", "the first frame");
    pane.type("copy two files");
    pane.keys("Enter");
    const asked = await pane.waitFor(QUESTION, "the command's approval");
    expect(asked).toContain("run_command on cp -v version.ts version.copy.ts");
    expect(asked).toContain("why asked: run_command runs a command and matches no allow rule");
    expect(asked).toContain('command:   ["cp","-v","version.ts","version.copy.ts"] (no shell)');
    expect(asked).toContain("starts in: src/ (it may still touch the whole workspace)");
    expect(asked).toMatch(/sandbox: {3}(bwrap|landlock): network off, secrets hidden/);
    expect(asked).toContain("timeout:   120 s, then it and everything it started are killed");
    expect(asked).toContain("undo:      its changes are saved in the undo journal; glassbox undo restores them");
    expect(STATUS(asked)).toContain("waiting for approval");

    pane.keys("a");
    const ended = await pane.waitFor("stopped: completed", "the run to end, the second command not asked about");
    expect(ended).not.toContain("┌─ approval needed ");
    // The rule a made, where the first command's result is shown.
    expect(ended).toContain("│  allowed: The user allowed run_command:cp -v* for the rest of this session.");
    expect(fs.readFileSync(path.join(workspace, "src", "version.copy.ts"), "utf8")).toBe(fs.readFileSync(path.join(workspace, "src", "version.ts"), "utf8"));
    expect(fs.existsSync(path.join(workspace, "README.copy.md"))).toBe(true);
    pane.close();
  }, 60_000);
});
