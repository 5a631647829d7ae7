/**
 * End to end: build the compiled binary once, copy nothing else next to it, and drive the hidden
 * `--tui-probe` screen in tmux (a private tmux server, so no one else's sessions are touched).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildBinary } from "../../scripts/build.ts";

const tmuxPath = Bun.which("tmux");
const root = path.resolve(import.meta.dir, "../..");
const socket = `glassbox-e2e-${process.pid}`;
let dir = "";
let binary = "";

function tmux(...args: string[]): string {
  const result = Bun.spawnSync([tmuxPath!, "-L", socket, "-f", "/dev/null", ...args], { stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`tmux ${args[0]}: ${result.stderr.toString().trim()}`);
  return result.stdout.toString();
}

async function waitForPane(session: string, done: (text: string) => boolean, what: string): Promise<string> {
  let text = "";
  for (const started = Date.now(); Date.now() - started < 5000; await Bun.sleep(50)) {
    text = tmux("capture-pane", "-p", "-t", session);
    if (done(text)) return text;
  }
  throw new Error(`timed out waiting for ${what}; the pane shows:\n${text}`);
}

describe.skipIf(!tmuxPath || process.env.GLASSBOX_SKIP_E2E === "1")("the compiled binary in tmux", () => {
  beforeAll(async () => {
    // A binary alone in a temp dir, outside the repository: no node_modules beside it.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-e2e-"));
    binary = (await buildBinary(path.join(root, "src/cli/main.ts"), path.join(dir, "glassbox"))).outfile;
  }, 60_000);

  afterAll(() => {
    try {
      tmux("kill-server");
    } catch {
      // no server was started
    }
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const term of ["xterm-256color", "screen-256color"]) {
    test(`--tui-probe draws and quits cleanly with TERM=${term}`, async () => {
      const session = term.replace(/\W/g, "-");
      // The shell keeps the pane open after the probe exits and prints its exit code.
      const command = `env TERM=${term} NCURSES_NO_UTF8_ACS=1 ${binary} --tui-probe; echo "probe exited $?"; exec sleep 60`;
      tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", command);

      const screen = await waitForPane(session, (text) => text.includes("second box") || text.includes("probe exited"), "the probe's first frame");
      expect(screen).toContain("glassbox probe");
      expect(screen).toMatch(/┌─+┐/);
      expect(screen).toMatch(/└─+┘/);
      expect(screen).toMatch(/│glassbox probe\s+│/);
      expect(screen).toContain("{bold}not markup{/bold}"); // tags are off
      expect(screen).toMatch(/│幅広い文字 ok\|\s+│/); // wide characters take two cells, the border lines up

      tmux("send-keys", "-t", session, "q");
      const after = await waitForPane(session, (text) => text.includes("probe exited"), "the probe to exit");
      expect(after).toContain("probe exited 0");
      expect(after).not.toContain("glassbox probe"); // the alternate screen was left
      expect(after).not.toMatch(/error|\bat .+:\d+|Error on/i); // no stack trace, no terminfo compiler dump
      tmux("kill-session", "-t", session);
    }, 10_000);
  }
});
