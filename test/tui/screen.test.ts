import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { tempFolder } from "../helpers/workspace.ts";

const SCREEN = join(import.meta.dir, "..", "..", "src", "tui", "screen.ts");

// A terminal that closes hangs up on glassbox, and every write to it fails after that: the error
// such a write throws while the signal's cleanups run (stopping a check, removing its temp
// folder) must not end glassbox before they are done. In a process of its own: the signal exits it.
test("an error thrown while a hang-up's cleanups run waits for them: the exit is the signal's, after the cleanup", async () => {
  const folder = tempFolder("screen-signal");
  const done = join(folder, "cleaned-up");
  const script = `
    const { PassThrough } = await import("node:stream");
    const { createScreen, onSignalExit } = await import(${JSON.stringify(SCREEN)});
    const output = Object.assign(new PassThrough(), { columns: 80, rows: 24, isTTY: true });
    const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => {} });
    createScreen({ input, output, terminal: "xterm-256color" });
    onSignalExit(async () => {
      await Bun.sleep(300);
      await Bun.write(${JSON.stringify(done)}, "yes");
    });
    process.kill(process.pid, "SIGHUP");
    setTimeout(() => { throw new Error("write EIO"); }, 50);
    await Bun.sleep(10_000);`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "ignore", stderr: "pipe" });
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  expect({ code, cleanedUp: existsSync(done) }).toEqual({ code: 129, cleanedUp: true });
  expect(stderr).toContain("glassbox: while stopping: Error: write EIO");
});
