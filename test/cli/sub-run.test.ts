// A sub-run through the command line: `run --json` prints its events tagged with the explore
// call's id, before the parent's tool_call, and the log holds the same lines; the readable output
// indents them; --limit max_sub_run_steps reaches it.
import { expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { glassbox, scriptFile } from "../helpers/cli.ts";
import { call } from "../helpers/run.ts";
import { makeWorkspace } from "../helpers/workspace.ts";
import { expectWellFormedEvents } from "../helpers/invariants.ts";

const script = scriptFile([
  call("explore", { question: "Where is the version compared?" }, "e1"),
  call("search_text", { pattern: "compare" }, "s1"),
  call("read_file", { path: "src/version.ts", max_lines: 5 }, "s2"),
  call("finish", { summary: "src/version.ts defines compare." }, "s3"),
  { content: "compare is in src/version.ts." },
]);

test("run --json: the sub-run's events carry sub_run, its stop included, all before the parent's explore call; the log is the same", async () => {
  const ws = makeWorkspace();
  const result = await glassbox(["run", "--json", "--model", script, "--workspace", ws.root, "find compare"]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expectWellFormedEvents(result.events);
  const sequence = result.events.map((event) => `${event.kind}${event.sub_run ? `@${event.sub_run}` : ""}${event.kind === "tool_call" ? `:${event.tool}` : ""}`);
  expect(sequence).toEqual([
    "run_start",
    "model_request", "model_done", "model_reply",
    "run_start@e1",
    "model_request@e1", "model_done@e1", "model_reply@e1", "tool_call@e1:search_text",
    "model_request@e1", "model_done@e1", "model_reply@e1", "tool_call@e1:read_file",
    "model_request@e1", "model_done@e1", "model_reply@e1", "tool_call@e1:finish",
    "stop@e1",
    "tool_call:explore",
    "model_request", "model_done", "model_reply",
    "stop",
  ]);
  const explore = result.events.find((event) => event.kind === "tool_call" && event.tool === "explore")!;
  expect(explore).not.toHaveProperty("sub_run");
  expect(explore).toMatchObject({ id: "e1", step: 1, decision: "allowed", result: "src/version.ts defines compare." });
  expect(result.events.at(-1)).toMatchObject({ kind: "stop", status: "completed", steps: 5, tool_calls: 4, sub_runs: { runs: 1, steps: 3, tool_calls: 3 } });
  const folder = join(ws.root, ".glassbox", "runs");
  const logged = readFileSync(join(folder, readdirSync(folder)[0]!), "utf8").trim().split("\n").map((line) => JSON.parse(line));
  expect(logged.filter((event) => event.kind !== "model_delta")).toEqual(result.events.filter((event) => event.kind !== "model_delta"));
});

test("readable output: the sub-run's lines indented under its explore call; --limit max_sub_run_steps=1 stops it, and the parent goes on", async () => {
  const ws = makeWorkspace();
  const result = await glassbox(["run", "--model", script, "--workspace", ws.root, "--limit", "max_sub_run_steps=1", "find compare"]);
  const lines = result.stdout.split("\n");
  const opened = lines.findIndex((line) => line.startsWith("  ┌ explore e1: a sub-run with 9 read-only tools"));
  const closed = lines.findIndex((line) => line.startsWith("  └ explore e1: step_limit after 1 step(s), 1 tool call(s)"));
  expect(opened).toBeGreaterThan(0);
  expect(closed).toBeGreaterThan(opened);
  expect(lines.slice(opened + 1, closed).every((line) => line.startsWith("  │ "))).toBe(true);
  expect(lines[closed]).toContain("the sub-run replied 1 times, the most a sub-run may (max_sub_run_steps)");
  expect(lines[closed + 1]).toStartWith("[1] explore");
  // The script goes on for the parent: it reads, then its finish ends the run.
  expect(result.stdout).toContain("stop: completed after 4 step(s), 4 tool call(s)");
  expect(result.code).toBe(0);
});
