import { join } from "node:path";
import { writeFileSync } from "node:fs";
import type { ScriptedReply } from "../../src/model/scripted.ts";
import { tempFolder } from "./workspace.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON Lines (with --json). */
  events: Array<Record<string, any>>;
}

/** Runs `bun src/cli/main.ts ARGS` as a real process, the way a user or a script would. */
export async function glassbox(args: string[], options: { cwd?: string; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<CliResult> {
  const env = options.env ? { ...process.env, ...options.env } : undefined;
  const child = Bun.spawn([process.execPath, MAIN, ...args], { cwd: options.cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  const events = args.includes("--json") ? stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line)) : [];
  return { code, stdout, stderr, events };
}

/** Writes a scripted-model file and returns its `--model` spec. */
export function scriptFile(replies: ScriptedReply[]): string {
  const file = join(tempFolder("script"), "script.json");
  writeFileSync(file, JSON.stringify({ replies }));
  return `scripted:${file}`;
}
