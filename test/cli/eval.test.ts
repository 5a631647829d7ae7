import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { INTERRUPTED_EXIT } from "../../src/cli/eval.ts";
import { leftovers, unique } from "../helpers/processes.ts";
import { tempFolder } from "../helpers/workspace.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");
/** A duration no other process sleeps for, so the check's process can be found by it. */
const SLOW = `30.${unique()}`;

const LIMITS = { max_steps: 8, max_tool_calls: 12, max_calls_per_reply: 4, max_repeat: 2, deadline_seconds: 90, max_result_chars: 2000, max_transcript_chars: 12000, max_tokens: 0, max_sub_run_steps: 12 };

test("Ctrl-C stops an eval: the check under way is killed, its copy removed, nothing judged, and --resume is named; exit 130", async () => {
  const root = tempFolder("eval-interrupt");
  const tasks = join(root, "tasks");
  const scripts = join(root, "scripts");
  mkdirSync(tasks);
  mkdirSync(scripts);
  for (const name of ["slow-a", "slow-b"]) {
    writeFileSync(join(tasks, `${name}.json`), JSON.stringify({ prompt: "Run the slow check, then finish.", workspace: "toy", pass: [{ answer_contains: "done" }], limits: LIMITS }));
    writeFileSync(
      join(scripts, `${name}.json`),
      JSON.stringify({ replies: [{ content: "", tool_calls: [{ id: "c1", name: "run_check", arguments: { name: "slow" } }] }, { content: "done", tool_calls: [{ id: "c2", name: "finish", arguments: { summary: "done" } }] }] }),
    );
  }
  const arm = join(root, "slow.json");
  writeFileSync(arm, JSON.stringify({ checks: { slow: { argv: ["sleep", SLOW], timeout_seconds: 120 } }, allow: ["run_check"], sandbox: "off" }));
  const out = join(root, "out");
  // Its own TMPDIR, to see that the workspace copies and the check's temp folder go.
  const tmp = tempFolder("eval-interrupt-tmp");
  const child = Bun.spawn([process.execPath, MAIN, "eval", "--tasks", tasks, "--model", `scripted:${scripts}`, "--config", arm, "--jobs", "1", "--out", out], {
    env: { ...process.env, TMPDIR: tmp },
    stdout: "pipe",
    stderr: "pipe",
  });
  for (let i = 0; i < 400 && (await leftovers(SLOW)).length === 0; i++) await Bun.sleep(25);
  expect(await leftovers(SLOW)).toHaveLength(1);
  child.kill("SIGINT");
  const killedAt = performance.now();
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect(code).toBe(INTERRUPTED_EXIT);
  expect(performance.now() - killedAt).toBeLessThan(10_000);
  expect(await leftovers(SLOW)).toEqual([]);
  expect(readdirSync(tmp)).toEqual([]);
  expect(stderr).toContain(`interrupted: 0 of 2 run(s) finished and kept`);
  expect(stderr).toContain(`glassbox eval --resume ${out} runs the rest`);
  expect(stdout).toBe(""); // no results table for an eval that did not finish
  // The stopped run left no verdict, and the second never started.
  expect(existsSync(join(out, "runs", "slow-a", "seed-1", "verdict.json"))).toBe(false);
  expect(existsSync(join(out, "runs", "slow-b"))).toBe(false);
  expect(JSON.parse(readFileSync(join(out, "results.json"), "utf8"))).toEqual([]);
}, 30_000);
