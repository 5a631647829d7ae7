/**
 * `glassbox tune` against model-like servers with known traits, each built from the eval lab's
 * good scripts by one transformation (calls written as text, edits whose whitespace drifts,
 * replies that run long before the call, prose instead of calls, the same call again and again):
 * tune must name the trait, say which setting fixes it or that none does, change a setting only on
 * a significant paired result, write the profile, and resume.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tune } from "../../src/cli/tune.ts";
import { parseCli } from "../../src/cli/args.ts";
import { INTERRUPTED_EXIT } from "../../src/cli/eval.ts";
import { readVerdicts } from "../../src/eval/results.ts";
import { scriptedServer, type ScriptReply, type Trait } from "../helpers/scripted-server.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { glassbox } from "../helpers/cli.ts";

const EVALS = join(import.meta.dir, "..", "..", "evals");
const TASKS = join(EVALS, "tasks");
const GOOD = join(EVALS, "scripts", "good");
const TIMEOUT = 240_000;

const callText = (call: NonNullable<ScriptReply["tool_calls"]>[number]) => `<tool_call>\n${JSON.stringify({ name: call.name, arguments: call.arguments ?? {} })}\n</tool_call>`;
const withTrailing = (old: unknown) => (typeof old === "string" ? old.split("\n").map((line) => (line.trim() ? `${line}  ` : line)).join("\n") : old);

/** The five traits, each one transformation of a good reply. */
const TRAITS: Record<string, Trait> = {
  textCalls: (reply) => (reply.tool_calls?.length ? { content: [reply.content ?? "", ...reply.tool_calls.map(callText)].filter(Boolean).join("\n"), answers: reply.answers } : reply),
  drift: (reply) => ({
    ...reply,
    tool_calls: reply.tool_calls?.map((call) => {
      if (call.name !== "edit_file") return call;
      const args = call.arguments as Record<string, unknown> & { edits?: Array<Record<string, unknown>> };
      return { ...call, arguments: { ...args, ...(args.old ? { old: withTrailing(args.old) } : {}), ...(args.edits ? { edits: args.edits.map((edit) => ({ ...edit, old: withTrailing(edit.old) })) } : {}) } };
    }),
  }),
  longReplies: (reply) => (reply.tool_calls?.length ? { ...reply, content: `${"so ".repeat(1100)}${reply.content ?? ""}` } : reply),
  narrates: () => ({ content: "I would read the failing test, then fix the function it calls, then run the tests." }),
  loops: (_, __, replies) => replies[0]!,
};

interface Tuned {
  code: number;
  lines: string[];
  progress: string;
  env: Record<string, string>;
  out: string;
}

async function runTune(trait: Trait | undefined, flags: string[], options: { env?: Record<string, string>; stopAfter?: number; modelId?: string; window?: number } = {}): Promise<Tuned & { url: string }> {
  const server = scriptedServer(TASKS, GOOD, 0, { trait, modelId: options.modelId, window: options.window });
  const env = options.env ?? { XDG_CONFIG_HOME: tempFolder("tune-config") };
  const out = flags.includes("--resume") ? flags[flags.indexOf("--resume") + 1]! : join(tempFolder("tune-out"), "out");
  const lines: string[] = [];
  let progress = "";
  const stop = new AbortController();
  const sink = {
    // A terminal's sink hears every run (a log's, one line in 10 s): how the test stops after some.
    tty: options.stopAfter !== undefined,
    write: (text: string) => {
      progress += text;
      const finished = Number(/(\d+)\/\d+ runs/.exec(text)?.[1] ?? 0);
      if (options.stopAfter !== undefined && finished >= options.stopAfter) stop.abort();
    },
  };
  const modelFlags = flags.includes("--resume") ? [] : ["--model", `llamacpp:${server.url}`, "--out", out];
  const args = parseCli(["tune", ...modelFlags, "--workspace", tempFolder("tune-ws"), "--jobs", "4", ...flags]);
  const code = await tune(args, (line) => lines.push(line), sink, stop.signal, env);
  return { code, lines, progress, env, out, url: server.url };
}

const settingLine = (lines: string[], key: string) => lines.find((line) => line.startsWith(`${key}: `)) ?? "";

describe("each trait is named, with the setting that fixes it or none", () => {
  test("calls written as text: named, text_tool_calls kept (off, the runs fail)", async () => {
    const { code, lines } = await runTune(TRAITS.textCalls, ["--quick"]);
    expect(code).toBe(0);
    expect(lines).toContainEqual(expect.stringMatching(/^trait: writes its tool calls as text \(\d+ of \d+ calls were written in the reply's text\); text_tool_calls/));
    expect(lines).toContainEqual(expect.stringMatching(/^tool calls: 0 native, \d+ written as text$/));
    const line = settingLine(lines, "text_tool_calls");
    expect(line).toMatch(/^text_tool_calls: true \(kept\) — 5\/0 passes, p=0\.063$/);
    // Five tasks cannot reach p < 0.05: --quick says so.
    expect(lines.at(-3)).toContain("--quick names traits");
  }, TIMEOUT);

  test("edits whose whitespace drifts: named, components.loose_edits kept", async () => {
    const { lines } = await runTune(TRAITS.drift, ["--quick"]);
    expect(lines).toContainEqual(expect.stringMatching(/^trait: its edits drift in whitespace .*components\.loose_edits/));
    const [, a, b] = /— (\d+)\/(\d+) passes/.exec(settingLine(lines, "components.loose_edits"))!;
    expect(Number(a)).toBeGreaterThan(Number(b));
    expect(settingLine(lines, "components.loose_edits")).toContain("true (kept)");
  }, TIMEOUT);

  test("a model that narrates: named as a trait no setting fixes", async () => {
    const { code, lines } = await runTune(TRAITS.narrates, ["--quick"]);
    expect(code).toBe(0);
    expect(lines).toContainEqual("trait: narrates instead of acting (5 of 5 runs answered in prose without calling a tool); no setting fixes it: pick another model (or another quantization)");
    expect(lines.filter((line) => line.includes("(changed)"))).toEqual([]);
  }, TIMEOUT);

  test("a model that loops: named as a trait no setting fixes", async () => {
    const { lines } = await runTune(TRAITS.loops, ["--quick"]);
    expect(lines).toContainEqual(expect.stringMatching(/^trait: loops \(\d+ stall note\(s\); [1-9]\d* run\(s\) stopped for repeating a call\); no setting fixes it/));
    expect(lines).not.toContainEqual(expect.stringMatching(/^trait: narrates/));
  }, TIMEOUT);
});

describe("replies that run long before the call: the full battery changes the reply cap, and the profile is applied", () => {
  let tuned: Tuned & { url: string };

  test("the cut replies are a trait (never prose), and model_options.max_tokens is changed on a significant paired result", async () => {
    // A 32K window, as the small models people run have: room for a 4096-token reply cap.
    tuned = await runTune(TRAITS.longReplies, [], { modelId: "models/long-winded.gguf", window: 32768 });
    const { code, lines } = tuned;
    expect(code).toBe(0);
    expect(lines).toContainEqual(expect.stringMatching(/^trait: its replies run past the reply cap \(\d+ replies cut off at max_tokens\); model_options\.max_tokens/));
    expect(lines).not.toContainEqual(expect.stringMatching(/^trait: narrates/));
    const line = settingLine(lines, "model_options.max_tokens");
    const [, a, b, p] = /— (\d+)\/(\d+) passes, p=([\d.]+)$/.exec(line)!;
    expect(Number(b)).toBeGreaterThan(Number(a));
    expect(Number(p)).toBeLessThan(0.05);
    expect(line).toStartWith("model_options.max_tokens: 4096 (changed)");
    // Nothing else changed: the other settings did not help a model whose replies are cut.
    expect(lines.filter((entry) => entry.includes("(changed)"))).toHaveLength(1);
    expect(existsSync(join(tuned.out, "report.html"))).toBe(true);
    expect(readFileSync(join(tuned.out, "report.html"), "utf8")).toContain("model_options.max_tokens: 4096 (changed)");
  }, TIMEOUT);

  test("the profile holds identity (the model's name as the server reports it), settings, traits and created; tune --show prints it", async () => {
    const path = /^profile: (\S+)/.exec(tuned.lines.find((line) => line.startsWith("profile: "))!)![1]!;
    expect(path).toStartWith(join(tuned.env.XDG_CONFIG_HOME!, "glassbox", "profiles"));
    const profile = JSON.parse(readFileSync(path, "utf8"));
    expect(profile.identity).toMatchObject({ server: "llama.cpp", model: "models/long-winded.gguf" });
    expect(profile.settings).toEqual({ "model_options.max_tokens": 4096 });
    expect(profile.traits.map((trait: { name: string }) => trait.name)).toContain("its replies run past the reply cap");
    expect(Date.parse(profile.created)).toBeGreaterThan(0);
    const shown = await glassbox(["tune", "--show", "--model", `llamacpp:${tuned.url}`], { env: tuned.env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`profile ${path}`);
    expect(shown.stdout).toContain('"model_options.max_tokens": 4096');
  }, TIMEOUT);

  test("a later run with that model applies it (run_start); glassbox.json and --no-profile win", async () => {
    const spec = `llamacpp:${tuned.url}`;
    const path = /^profile: (\S+)/.exec(tuned.lines.find((line) => line.startsWith("profile: "))!)![1]!;
    const runStart = async (extra: string[], config?: Record<string, unknown>, modelFlags = ["--model", spec]) => {
      const ws = tempFolder("tune-run");
      if (config) writeFileSync(join(ws, "glassbox.json"), JSON.stringify(config));
      const result = await glassbox(["run", "--json", ...modelFlags, "--workspace", ws, ...extra, "say hello"], { env: tuned.env });
      return result.events.find((event) => event.kind === "run_start")!;
    };
    expect((await runStart([])).profile).toEqual({ path, settings: { "model_options.max_tokens": 4096 } });
    expect((await runStart([], { model_options: { max_tokens: 2000 } })).profile).toEqual({ path, settings: {} });
    expect((await runStart(["--no-profile"])).profile).toBeNull();
    // No --model: the one model that answers there (discovery) is run with its profile too.
    expect((await runStart([], undefined, ["--base-url", tuned.url])).profile).toEqual({ path, settings: { "model_options.max_tokens": 4096 } });
    // Another model (another name on the server) has no profile.
    const other = scriptedServer(TASKS, GOOD, 0, { modelId: "models/other.gguf", window: 32768 });
    const ws = tempFolder("tune-run-other");
    const result = await glassbox(["run", "--json", "--model", `llamacpp:${other.url}`, "--workspace", ws, "say hello"], { env: tuned.env });
    expect(result.events.find((event) => event.kind === "run_start")!.profile).toBeNull();
  }, TIMEOUT);
});

test("an interrupted tune is resumed like eval: finished runs are kept, the rest run, the lines come", async () => {
  const first = await runTune(undefined, ["--quick", "--jobs", "1"], { stopAfter: 3 });
  expect(first.code).toBe(INTERRUPTED_EXIT);
  expect(first.progress).toContain(`glassbox tune --resume ${first.out} runs the rest`);
  const kept = readVerdicts(join(first.out, "baseline"));
  expect(kept.length).toBeGreaterThan(0);
  expect(kept.length).toBeLessThan(5);
  const resumed = await runTune(undefined, ["--resume", first.out], { env: first.env });
  expect(resumed.code).toBe(0);
  expect(resumed.lines).toContainEqual(expect.stringMatching(/^text_tool_calls: true \(kept\) — 5\/5 passes, p=1\.000$/));
  const after = readVerdicts(join(first.out, "baseline"));
  expect(after).toHaveLength(5);
  // The runs finished before the interruption were not run again.
  for (const verdict of kept) expect(after.find((entry) => entry.task === verdict.task)!.run_id).toBe(verdict.run_id);
}, TIMEOUT);
