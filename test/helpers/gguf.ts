/**
 * For tests of the llama-server glassbox starts for a gguf: model: a copy of a generated model
 * under a name of the test's own, the server processes left for it, and waiting for a pid to end.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempFolder } from "./workspace.ts";
import { processAlive as alive } from "../../src/platform/process-alive.ts";

export { alive };

/** Waits up to `ms` for a process to be gone; true when it is. */
export async function gone(pid: number, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  while (alive(pid)) {
    if (performance.now() > until) return false;
    await Bun.sleep(100);
  }
  return true;
}

/** Processes whose command line names this model file: its llama-server, if one is left. */
export function serversOf(model: string): number[] {
  // "--": the pattern starts with a dash, which pgrep would take for an option (and find nothing).
  const out = Bun.spawnSync(["pgrep", "-f", "--", `-m ${model}`]).stdout.toString().trim();
  return out ? out.split("\n").map(Number) : [];
}

/** A copy of the generated model under a name of the test's own, so its server is told apart from every other. */
export function modelCopy(source: string): string {
  const copy = join(tempFolder("gguf"), "model.gguf");
  writeFileSync(copy, readFileSync(source));
  return copy;
}

/** The model without its last 4 KB, as an interrupted download leaves it. */
export function truncatedCopy(source: string): string {
  const whole = readFileSync(source);
  const cut = join(tempFolder("gguf"), "cut.gguf");
  writeFileSync(cut, whole.subarray(0, whole.length - 4096));
  return cut;
}
