import fs from "node:fs";
import path from "node:path";

/**
 * The e2e tests' private tmux servers are named `glassbox-e2e-<pid of the test process>-<n>`.
 * `bun test --bail` (scripts/mutate.ts) exits at the first failure without running afterAll and
 * leaves that file's server running, with the binaries in its panes: this ends every one whose
 * test process `ends(owner)` says is done with it.
 */
export function endE2eServers(ends: (owner: number) => boolean, tmux = Bun.which("tmux")): void {
  const folder = path.join(process.env.TMUX_TMPDIR ?? "/tmp", `tmux-${process.getuid?.() ?? 0}`);
  let names: string[] = [];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return; // no tmux server has run
  }
  for (const name of names) {
    const owner = /^glassbox-e2e-(\d+)-\d+$/.exec(name)?.[1];
    if (!owner || !ends(Number(owner))) continue;
    if (tmux) Bun.spawnSync([tmux, "-L", name, "kill-server"], { stderr: "ignore" });
    fs.rmSync(path.join(folder, name), { force: true });
  }
}

export { processAlive as isAlive } from "../../src/platform/process-alive.ts";
