import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scriptFile } from "../helpers/cli.ts";
import { leftovers, unique } from "../helpers/processes.ts";
import { call } from "../helpers/run.ts";
import { isAlive } from "../helpers/tmux-servers.ts";
import { makeWorkspace, tempFolder } from "../helpers/workspace.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");
const SCRIPT = Bun.which("script");

/** Polls `done` every 20 ms for up to `ms`. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await Bun.sleep(20);
  return done();
}

/**
 * The TUI in a real terminal (a pty from util-linux `script`), closed while a check runs: the
 * kernel hangs up on glassbox, and the shell of a real terminal sends its own SIGHUP after that.
 */
describe.skipIf(!SCRIPT)("the TUI on a terminal that closes during a check", () => {
  test("the check's processes are gone, its temp folder removed, and the log ends with the stop event", async () => {
    const ws = makeWorkspace();
    const tmp = tempFolder("tmpdir");
    const marker = unique();
    writeFileSync(join(ws.root, "glassbox.json"), JSON.stringify({ checks: { hang: { argv: ["sh", "-c", `echo started > hang.pid; exec sleep 30.${marker}`], timeout_seconds: 60 } } }));
    const model = scriptFile([call("run_check", { name: "hang" }), { content: "never" }]);
    const command = [process.execPath, MAIN, "--model", model, "--workspace", ws.root].map((arg) => `'${arg}'`).join(" ");
    const terminal = Bun.spawn([SCRIPT!, "-qfec", `stty rows 40 cols 120; exec ${command}`, "/dev/null"], {
      env: { ...process.env, TERM: "xterm-256color", TMPDIR: tmp },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
    });
    let screen = "";
    void (async () => {
      for await (const chunk of terminal.stdout) screen += new TextDecoder().decode(chunk);
    })();
    let tui = 0;
    try {
      expect(await until(() => screen.includes("Type a task and press Enter"), 20_000)).toBe(true);
      tui = Number(Bun.spawnSync(["pgrep", "-P", String(terminal.pid)]).stdout.toString().trim());
      terminal.stdin.write("run the check\r");
      terminal.stdin.flush();
      // What the check writes reaches the workspace only when it ends (an overlay), so its `sleep` is looked for.
      expect(await until(() => Bun.spawnSync(["pgrep", "-f", `sleep 30.${marker}`]).stdout.toString().trim() !== "", 20_000)).toBe(true);
      expect(readdirSync(tmp).filter((name) => name.startsWith("glassbox-check-"))).toHaveLength(1);

      process.kill(tui, "SIGHUP");
      await Bun.sleep(5);
      process.kill(tui, "SIGHUP");
      terminal.kill("SIGKILL");
      expect(await until(() => !isAlive(tui), 10_000)).toBe(true);

      expect(await leftovers(marker)).toEqual([]);
      expect(readdirSync(tmp).filter((name) => name.startsWith("glassbox-check-"))).toEqual([]);
      const runs = join(ws.root, ".glassbox", "runs");
      const log = readFileSync(join(runs, readdirSync(runs)[0]!), "utf8").trim().split("\n");
      expect(JSON.parse(log.at(-1)!)).toMatchObject({ kind: "stop", status: "interrupted", tool_calls: 1 });
    } finally {
      terminal.kill("SIGKILL");
      if (tui && isAlive(tui)) process.kill(tui, "SIGKILL");
      Bun.spawnSync(["pkill", "-KILL", "-f", marker]);
    }
  }, 60_000);
});
