import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json";
import { DEFAULT_LIMITS } from "../../src/protocol/limits.ts";
import { ScriptSchema } from "../../src/model/scripted.ts";
import { glassbox, scriptFile, type CliResult } from "../helpers/cli.ts";
import { call } from "../helpers/run.ts";
import { CANARY, makeWorkspace, tempFolder } from "../helpers/workspace.ts";
import { expectWellFormedEvents } from "../helpers/invariants.ts";
import { buildInfo, versionLine } from "../../src/platform/build-info.ts";
import { afterHangUps, leftovers, unique } from "../helpers/processes.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");

const run = (workspace: string, model: string, ...rest: string[]) =>
  glassbox(["run", "--json", "--model", model, "--workspace", workspace, ...rest, "do the task"]);

const stopOf = (result: CliResult) => result.events.at(-1)!;
const callsOf = (result: CliResult) => result.events.filter((event) => event.kind === "tool_call");

function logLines(workspace: string): string[] {
  const folder = join(workspace, ".glassbox", "runs");
  const files = readdirSync(folder);
  expect(files).toHaveLength(1);
  const text = readFileSync(join(folder, files[0]!), "utf8");
  expect(text.endsWith("\n") || text === "").toBe(true);
  return text.split("\n").filter((line) => line !== "");
}

/** Exit 2, a message on stderr, nothing on stdout, nothing run (no .glassbox folder). */
function expectUsageError(result: CliResult, workspace: string, mentions: string | RegExp): void {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).toStartWith("glassbox: ");
  expect(result.stderr).toMatch(mentions);
  expect(result.stderr).not.toContain("    at ");
  expect(existsSync(join(workspace, ".glassbox"))).toBe(false);
}

const readReadme = scriptFile([call("read_file", { path: "README.md" }), { content: "It compares versions." }]);

describe("exit codes and the event stream", () => {
  test("a completed run exits 0; its events and its log agree, line for line", async () => {
    const ws = makeWorkspace();
    const result = await run(ws.root, readReadme);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expectWellFormedEvents(result.events);
    const start = result.events[0]!;
    expect(start).toMatchObject({ kind: "run_start", model: readReadme, workspace: ws.root, task: "do the task" });
    // The defaults (test/protocol/limits.test.ts holds them to the contract's table), every one of them.
    expect(start.limits).toEqual(DEFAULT_LIMITS);
    expect(stopOf(result)).toMatchObject({ kind: "stop", status: "completed", steps: 2, tool_calls: 1, answer: "It compares versions." });
    expect(callsOf(result)).toEqual([expect.objectContaining({ tool: "read_file", arguments: '{"path":"README.md"}', decision: "allowed" })]);

    const path = join(ws.root, ".glassbox", "runs", `${start.run_id}.jsonl`);
    expect(existsSync(path)).toBe(true);
    const logged = logLines(ws.root).map((line) => JSON.parse(line));
    expect(logged).toEqual(result.events);
    expect(logged.at(-1)!.kind).toBe("stop");
    const stop = logged.at(-1)!;
    expect(stop.steps).toBe(logged.filter((event) => event.kind === "model_request").length);
    expect(stop.tool_calls).toBe(logged.filter((event) => event.kind === "tool_call").length);
  });

  test("any other status exits 1 (step_limit via --limit max_steps=2)", async () => {
    const ws = makeWorkspace();
    const exploring = scriptFile(["README.md", "NOTES.md", "package.json", "src/version.ts"].map((path) => call("read_file", { path })));
    const result = await run(ws.root, exploring, "--limit", "max_steps=2");
    expect(result.code).toBe(1);
    expect(result.events[0]!.limits.max_steps).toBe(2);
    expect(stopOf(result)).toMatchObject({ status: "step_limit", steps: 2, tool_calls: 2 });
    const logged = logLines(ws.root).map((line) => JSON.parse(line));
    expect(logged.at(-1)).toEqual(stopOf(result));
  });

  test("--limit max_tool_calls=1: call_limit, exit 1; the summary counts match the log", async () => {
    const ws = makeWorkspace();
    const two = scriptFile([call("read_file", { path: "README.md" }), call("read_file", { path: "NOTES.md" }), { content: "x" }]);
    const result = await run(ws.root, two, "--limit", "max_tool_calls=1", "--limit", "max_steps=5");
    expect(result.code).toBe(1);
    expect(stopOf(result)).toMatchObject({ status: "call_limit", tool_calls: 1, steps: 2 });
    const logged = logLines(ws.root).map((line) => JSON.parse(line));
    const counted = logged.filter((event) => event.kind === "tool_call" && event.decision !== "stopped");
    expect(logged.at(-1)!.tool_calls).toBe(counted.length);
  });

  test("a model error exits 1", async () => {
    const ws = makeWorkspace();
    const result = await run(ws.root, scriptFile([{ error: "the server fell over" }]));
    expect(result.code).toBe(1);
    expect(stopOf(result)).toMatchObject({ status: "model_error" });
    expect(stopOf(result).reason).toContain("the server fell over");
  });

  test("without --json: readable lines, a stop line and the log path", async () => {
    const ws = makeWorkspace();
    const result = await glassbox(["run", "--model", readReadme, "--workspace", ws.root, "what is this?"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^stop: completed after 2 step\(s\), 1 tool call\(s\)/m);
    expect(result.stdout).toContain("It compares versions.");
    expect(result.stdout).toMatch(/read_file .*README\.md.* → allowed/);
    const logLine = /^log: (.+)$/m.exec(result.stdout);
    expect(logLine).not.toBeNull();
    const path = logLine![1]!;
    expect(path).toStartWith(join(ws.root, ".glassbox", "runs") + "/");
    expect(path).toEndWith(".jsonl");
    expect(JSON.parse(readFileSync(path, "utf8").trim().split("\n").at(-1)!)).toMatchObject({ kind: "stop", status: "completed" });
    expect(() => JSON.parse(result.stdout.split("\n")[0]!)).toThrow();
  });

  test("--help and --version exit 0", async () => {
    const help = await glassbox(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("glassbox run [options] \"TASK\"");
    expect(help.stdout).toContain("--no-execute");
    const version = await glassbox(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(versionLine(pkg.version, buildInfo()));
  });
});

describe("usage errors: exit 2, a message on stderr, nothing run", () => {
  test("a bad --model spec", async () => {
    const ws = makeWorkspace();
    expectUsageError(await run(ws.root, "gpt:4"), ws.root, '"gpt:4"');
    expectUsageError(await run(ws.root, "scripted:"), ws.root, "names no file");
  });

  test("an unknown --limit name, and --limit values that are not numbers or out of range", async () => {
    const ws = makeWorkspace();
    expectUsageError(await run(ws.root, readReadme, "--limit", "max_stepz=3"), ws.root, '"max_stepz"');
    expectUsageError(await run(ws.root, readReadme, "--limit", "max_steps=lots"), ws.root, "max_steps");
    expectUsageError(await run(ws.root, readReadme, "--limit", "max_steps=0"), ws.root, "max_steps");
    expectUsageError(await run(ws.root, readReadme, "--limit", "max_steps=2.5"), ws.root, "max_steps");
    expectUsageError(await run(ws.root, readReadme, "--limit", "max_steps"), ws.root, "NAME=VALUE");
  });

  test("a rule naming an unknown tool, in --allow or --deny", async () => {
    const ws = makeWorkspace();
    expectUsageError(await run(ws.root, readReadme, "--allow", "remove_file"), ws.root, '"remove_file"');
    expectUsageError(await run(ws.root, readReadme, "--deny", "shell:rm*"), ws.root, '"shell"');
  });

  test("a scripted file with invalid JSON, an unknown key, or that does not exist", async () => {
    const ws = makeWorkspace();
    const folder = tempFolder("badscript");
    writeFileSync(join(folder, "broken.json"), '{"replies": [');
    expectUsageError(await run(ws.root, `scripted:${join(folder, "broken.json")}`), ws.root, "not valid JSON");
    writeFileSync(join(folder, "typo.json"), JSON.stringify({ replies: [{ contnet: "x" }] }));
    expectUsageError(await run(ws.root, `scripted:${join(folder, "typo.json")}`), ws.root, "contnet");
    expectUsageError(await run(ws.root, `scripted:${join(folder, "missing.json")}`), ws.root, "missing.json");
  });

  test("a missing task", async () => {
    const ws = makeWorkspace();
    expectUsageError(await glassbox(["run", "--json", "--model", readReadme, "--workspace", ws.root]), ws.root, "task");
    expectUsageError(await glassbox(["run", "--json", "--model", readReadme, "--workspace", ws.root, "   "]), ws.root, "task");
  });

  test("an unknown option, a workspace that is not a folder, an unwritable --record path", async () => {
    const ws = makeWorkspace();
    expectUsageError(await run(ws.root, readReadme, "--yolo"), ws.root, "yolo");
    expectUsageError(await run(join(ws.root, "README.md"), readReadme), ws.root, "not a folder");
    expectUsageError(await run(ws.root, readReadme, "--record", join(ws.outside, "no", "such", "folder", "rec.json")), ws.root, "--record");
  });
});

describe("options end to end", () => {
  const writeNotes = scriptFile([call("write_file", { path: "NOTES.md", content: "rewritten" }), { content: "done" }]);
  const notes = (root: string) => readFileSync(join(root, "NOTES.md"), "utf8");

  test("headless with no --allow: the write is denied and the file unchanged", async () => {
    const ws = makeWorkspace();
    const before = notes(ws.root);
    const result = await run(ws.root, writeNotes);
    expect(result.code).toBe(0);
    expect(callsOf(result)[0]!.decision).toBe("denied");
    expect(notes(ws.root)).toBe(before);
  });

  test("--allow write_file: the write happens", async () => {
    const ws = makeWorkspace();
    const result = await run(ws.root, writeNotes, "--allow", "write_file");
    expect(callsOf(result)[0]!.decision).toBe("allowed");
    expect(notes(ws.root)).toBe("rewritten");
  });

  test("--deny beats --allow", async () => {
    const ws = makeWorkspace();
    const before = notes(ws.root);
    const result = await run(ws.root, writeNotes, "--allow", "write_file", "--deny", "write_file:*.md");
    expect(callsOf(result)[0]!.decision).toBe("denied");
    expect(notes(ws.root)).toBe(before);
  });

  test("--allow TOOL:GLOB matches the path", async () => {
    const ws = makeWorkspace();
    const script = scriptFile([call("write_file", { path: "src/new.ts", content: "a" }), call("write_file", { path: "NOTES.md", content: "b" }), { content: "done" }]);
    const result = await run(ws.root, script, "--allow", "write_file:src/**");
    expect(callsOf(result).map((event) => event.decision)).toEqual(["allowed", "denied"]);
    expect(readFileSync(join(ws.root, "src/new.ts"), "utf8")).toBe("a");
  });

  test("--no-execute: nothing runs, every call is answered 'not executed'", async () => {
    const ws = makeWorkspace();
    const before = notes(ws.root);
    const result = await run(ws.root, writeNotes, "--allow", "write_file", "--no-execute");
    expect(result.code).toBe(0);
    expect(callsOf(result)).toHaveLength(1);
    expect(callsOf(result)[0]).toMatchObject({ decision: "refused" });
    expect(callsOf(result)[0]!.reason).toContain("not executed");
    expect(notes(ws.root)).toBe(before);
    expect(result.events[0]!.tools).toContain("write_file");
  });

  test("--no-tools: no tools are declared and a call anyway is refused", async () => {
    const ws = makeWorkspace();
    const result = await run(ws.root, readReadme, "--no-tools");
    expect(result.code).toBe(0);
    expect(result.events[0]!.tools).toEqual([]);
    expect(callsOf(result)[0]!.decision).toBe("refused");
    expect(callsOf(result)[0]!.reason).toContain("no tools");
  });
});

describe("--record", () => {
  test("writes a scripted-model file that plays back to the same events", async () => {
    const ws = makeWorkspace({ poisoned: true });
    const recorded = join(tempFolder("rec"), "recorded.json");
    const script = scriptFile([
      call("read_file", { path: "NOTES.md" }),
      { content: "", tool_calls: [{ name: "read_file", arguments: '{"path": "../secrets/canary.txt"}' }, { name: "frobnicate", arguments: [1, 2] }] },
      { content: "writing", tool_calls: [{ name: "write_file", arguments: { path: "NOTES.md", content: "x" } }], usage: { prompt_tokens: 500, gen_tokens: 20 } },
      call("read_file", { path: "NOTES.md" }),
      call("read_file", { path: "NOTES.md" }),
      { content: "never" },
    ]);
    const first = await run(ws.root, script, "--record", recorded);
    expect(stopOf(first).status).toBe("repeat_limit");
    expect(ScriptSchema.parse(JSON.parse(readFileSync(recorded, "utf8"))).replies).toHaveLength(5);

    const again = makeWorkspace({ poisoned: true });
    const replay = await run(again.root, `scripted:${recorded}`);
    const decisions = (result: CliResult) => callsOf(result).map(({ step, id, tool, arguments: args, decision, reason }) => ({ step, id, tool, args, decision, reason }));
    expect(decisions(first).map((row) => row.decision)).toEqual(["allowed", "refused", "refused", "denied", "allowed", "stopped"]);
    expect(decisions(replay)).toEqual(decisions(first));
    const { elapsed_ms: _a, ...firstStop } = stopOf(first);
    const { elapsed_ms: _b, ...replayStop } = stopOf(replay);
    expect(replayStop).toEqual(firstStop);
    expect(replay.code).toBe(first.code);
    // The poisoned note's canary reached nothing: not stdout, not the log, not the recording.
    for (const text of [first.stdout, replay.stdout, readFileSync(recorded, "utf8"), logLines(ws.root).join("\n")]) expect(text).not.toContain(CANARY);
  });
});

describe("a run stopped from outside", () => {
  /** The check's command line carries a marker: its pid inside a sandbox's PID namespace means nothing outside. */
  const hanging = (marker: string) => ({ checks: { hang: { argv: ["sh", "-c", `echo started > hang.pid; exec sleep 30.${marker}`], timeout_seconds: 60 } } });

  /**
   * Starts a run whose second call is a check that hangs (or, `command`, a run_command that does);
   * resolves once it is running. `tmp`: the run's TMPDIR.
   */
  async function startHangingRun(root: string, { tmp, command = false }: { tmp?: string; command?: boolean } = {}) {
    const marker = unique();
    writeFileSync(join(root, "glassbox.json"), JSON.stringify(hanging(marker)));
    const hang = command ? call("run_command", { argv: hanging(marker).checks.hang.argv }) : call("run_check", { name: "hang" });
    const model = scriptFile([call("read_file", { path: "README.md" }), hang, { content: "never" }]);
    const child = Bun.spawn([process.execPath, MAIN, "run", "--json", "--allow", "run_command", "--model", model, "--workspace", root, "hang"], {
      env: tmp ? { ...process.env, TMPDIR: tmp } : undefined,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const until = Date.now() + 5000;
    // What a check or command writes reaches the workspace only when it ends (an overlay), so its `sleep` is looked for.
    const started = () => Bun.spawnSync(["pgrep", "-f", `sleep 30.${marker}`]).stdout.toString().trim() !== "";
    while (!started() && Date.now() < until) await Bun.sleep(10);
    expect(started()).toBe(true);
    const cleanUp = () => {
      Bun.spawnSync(["pkill", "-KILL", "-f", marker]);
      child.kill("SIGKILL");
    };
    return { child, marker, cleanUp };
  }

  test("SIGKILL mid-run leaves a log whose every line parses", async () => {
    const ws = makeWorkspace();
    const { child, cleanUp } = await startHangingRun(ws.root);
    try {
      child.kill("SIGKILL");
      expect(await child.exited).not.toBe(0);
      const lines = logLines(ws.root);
      const events = lines.map((line) => JSON.parse(line));
      expect(events[0].kind).toBe("run_start");
      expect(events.some((event) => event.kind === "tool_call" && event.tool === "read_file")).toBe(true);
      expect(events.at(-1)).toMatchObject({ kind: "model_reply", step: 2, tool_calls: 1 });
    } finally {
      cleanUp();
    }
  });

  test("SIGTERM mid-run: the check is killed, the run stops interrupted, exit 1, stop last in the log", async () => {
    const ws = makeWorkspace();
    const { child, marker, cleanUp } = await startHangingRun(ws.root);
    try {
      child.kill("SIGTERM");
      expect(await child.exited).toBe(1);
      expect(await leftovers(marker)).toEqual([]);
      const events = logLines(ws.root).map((line) => JSON.parse(line));
      expectWellFormedEvents(events);
      expect(events.at(-1)).toMatchObject({ kind: "stop", status: "interrupted", steps: 2, tool_calls: 2 });
      const stdout = (await new Response(child.stdout).text()).trim().split("\n").map((line) => JSON.parse(line));
      expect(stdout).toEqual(events);
    } finally {
      cleanUp();
    }
  });

  /** The checks' private temp folders in `tmp`. */
  const checkFolders = (tmp: string) => readdirSync(tmp).filter((name) => name.startsWith("glassbox-check-"));

  // A closing terminal hangs up again and again (the kernel, then the shell): every one is answered by stopping, never by dying.
  for (const [signal, command] of [["SIGHUP", false], ["SIGTERM", false], ["SIGHUP", true]] as const) {
    test(`${signal} after ${signal} while ${command ? "a command" : "a check"} runs: its processes gone, its temp folder removed, stop last in the log`, async () => {
      const ws = makeWorkspace();
      const tmp = tempFolder("tmpdir");
      const { child, marker, cleanUp } = await startHangingRun(ws.root, { tmp, command });
      try {
        expect(checkFolders(tmp)).toHaveLength(1);
        child.kill(signal);
        const again = setInterval(() => child.exitCode === null && child.kill(signal), 2);
        const code = await child.exited;
        clearInterval(again);
        expect(code).toBe(1);
        expect(await leftovers(marker)).toEqual([]);
        expect(checkFolders(tmp)).toEqual([]);
        const events = logLines(ws.root).map((line) => JSON.parse(line));
        expectWellFormedEvents(events);
        expect(events.at(-1)).toMatchObject({ kind: "stop", status: "interrupted", steps: 2, tool_calls: 2 });
        expect(events.findLast((event) => event.kind === "tool_call")).toMatchObject({ tool: command ? "run_command" : "run_check", decision: "allowed" });
      } finally {
        cleanUp();
      }
    });
  }
});

test("a workspace where the run log cannot be written is a usage error, not a crash", async () => {
  const ws = makeWorkspace();
  mkdirSync(join(ws.root, ".glassbox"), { recursive: true });
  writeFileSync(join(ws.root, ".glassbox", "runs"), "a file where the runs folder should be");
  const result = await glassbox(["run", "--json", "--model", scriptFile([{ content: "hi" }]), "--workspace", ws.root, "task"]);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain("cannot write the run log");
  expect(result.stdout).toBe("");
});

test("update_todo saves the plan to .glassbox/progress.json, and --resume starts with it", async () => {
  const ws = makeWorkspace();
  const items = [
    { text: "find the parser bug", status: "done" },
    { text: "fix it", status: "in_progress" },
  ];
  const first = await glassbox(["run", "--json", "--model", scriptFile([call("update_todo", { items }), { content: "stopping here" }]), "--workspace", ws.root, "fix the tests"]);
  expect(first.code).toBe(0);
  const saved = JSON.parse(readFileSync(join(ws.root, ".glassbox", "progress.json"), "utf8"));
  expect(saved.items).toEqual(items);
  expect(saved.run_id).toBe(first.events[0]!.run_id);

  const record = join(tempFolder("resume"), "replies.json");
  const resumed = await glassbox(["run", "--json", "--resume", "--record", record, "--model", scriptFile([{ content: "resuming" }]), "--workspace", ws.root, "carry on"]);
  expect(resumed.code).toBe(0);
  expect(resumed.events[0]!.task).toContain("[in_progress] fix it");
  expect(resumed.events[0]!.task).toContain("[done] find the parser bug");
  expect(resumed.events[0]!.task).toEndWith("carry on");
});

test("--resume with nothing saved is a usage error", async () => {
  const ws = makeWorkspace();
  const result = await glassbox(["run", "--resume", "--model", scriptFile([{ content: "x" }]), "--workspace", ws.root, "task"]);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain("nothing to resume");
});

describe("tool calls written as text (issue 23's new user: qwen2.5-coder's bare JSON)", () => {
  const asText = () => scriptFile([{ content: '{"name": "read_file", "arguments": {"path": "README.md"}}' }, { content: "It is a version helper." }]);

  test("by default the call runs, marked from_text in the log and the printed events", async () => {
    const ws = makeWorkspace();
    const result = await run(ws.root, asText());
    expect(result.code).toBe(0);
    expect(callsOf(result)).toEqual([expect.objectContaining({ tool: "read_file", decision: "allowed", from_text: true })]);
    expect(stopOf(result)).toMatchObject({ status: "completed", answer: "It is a version helper." });
    expect(logLines(ws.root).some((line) => line.includes('"from_text":true'))).toBe(true);
  });

  test("--no-text-tool-calls leaves the text as the answer", async () => {
    const ws = makeWorkspace();
    const result = await run(ws.root, asText(), "--no-text-tool-calls");
    expect(callsOf(result)).toHaveLength(0);
    expect(stopOf(result)).toMatchObject({ status: "completed", answer: '{"name": "read_file", "arguments": {"path": "README.md"}}' });
  });

  test('"text_tool_calls": false in the config switches it off; --text-tool-calls turns it on again', async () => {
    const ws = makeWorkspace();
    const config = join(tempFolder("config"), "off.json");
    writeFileSync(config, JSON.stringify({ text_tool_calls: false }));
    const off = await run(ws.root, asText(), "--config", config);
    expect(callsOf(off)).toHaveLength(0);
    const on = await run(ws.root, asText(), "--config", config, "--text-tool-calls");
    expect(callsOf(on)).toEqual([expect.objectContaining({ tool: "read_file", from_text: true })]);
  }, 30_000);

  test("both flags at once are a usage error", async () => {
    const ws = makeWorkspace();
    const result = await run(ws.root, asText(), "--text-tool-calls", "--no-text-tool-calls");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("contradict");
  });
});

test("once a headless run's signals are let go, a late hang-up is ignored while glassbox exits with the run's status (never exit 129)", async () => {
  const body = `const { stopOnSignals } = await import(${JSON.stringify(join(import.meta.dir, "..", "..", "src", "cli", "run.ts"))}); stopOnSignals(new AbortController())();`;
  expect(await afterHangUps(body)).toEqual({ code: 0, out: "alive" });
});
