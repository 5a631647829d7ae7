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
