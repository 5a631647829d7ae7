/** Digits unique to this test run (usable as `sleep 30.DIGITS`), to find leftover processes by their command line. */
export const unique = () => `${process.pid}${String(Math.floor(Math.random() * 1e9)).padStart(9, "0")}`;

/** Process ids whose command line contains `marker`, polled briefly so a dying process can finish dying. */
export async function leftovers(marker: string): Promise<string[]> {
  let found: string[] = [];
  for (let i = 0; i < 10; i++) {
    const out = Bun.spawnSync(["pgrep", "-f", marker]).stdout.toString().trim();
    found = out ? out.split("\n").filter((pid) => pid !== String(process.pid)) : [];
    if (found.length === 0) return [];
    await Bun.sleep(50);
  }
  return found;
}

/** Runs `body` in a fresh bun, then SIGHUP and SIGTERM to itself; its exit code and what it printed. */
export async function afterHangUps(body: string): Promise<{ code: number | null; out: string }> {
  const script = `${body}\nprocess.kill(process.pid, "SIGHUP"); process.kill(process.pid, "SIGTERM"); await Bun.sleep(200); console.log("alive");`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(child.stdout).text();
  return { code: await child.exited, out: out.trim() };
}
