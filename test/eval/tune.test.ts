/**
 * tune's judgement (src/eval/tune.ts, src/eval/traits.ts) on made-up results: a setting changes
 * only when its other value passed more with p < 0.05, and a reply cut at the cap is never
 * counted as narration.
 */
import { describe, expect, test } from "bun:test";
import { armConfig, armName, defaultOf, judgeSetting, settingLine, TUNE_SETTINGS } from "../../src/eval/tune.ts";
import { countTraits, namedTraits } from "../../src/eval/traits.ts";
import type { RunVerdict } from "../../src/eval/runner.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { ConfigSchema } from "../../src/session/config.ts";

const verdict = (task: string, passed: boolean): RunVerdict => ({ task, seed: 1, passed, criteria: [], status: passed ? "completed" : "step_limit", steps: 1, tool_calls: 1, tokens: 1, sub_run_tokens: 0, seconds: 1, refusals: { refused: 0, denied: 0, error: 0, stopped: 0 }, run_id: task });

/** `a` and `b`: which of n tasks each arm passed. */
function arms(n: number, passedA: (i: number) => boolean, passedB: (i: number) => boolean): [RunVerdict[], RunVerdict[]] {
  const tasks = Array.from({ length: n }, (_, i) => `t${i}`);
  return [tasks.map((task, i) => verdict(task, passedA(i))), tasks.map((task, i) => verdict(task, passedB(i)))];
}

const maxTokens = TUNE_SETTINGS.find((setting) => setting.key === "model_options.max_tokens")!;

describe("a setting is changed only on a significant paired result in its favour", () => {
  test("six discordant pairs all for B: changed (p=0.031)", () => {
    const result = judgeSetting(maxTokens, ...arms(12, () => false, (i) => i < 6));
    expect(result).toMatchObject({ changed: true, value: maxTokens.alternative, passesA: 0, passesB: 6, pairs: 12 });
    expect(settingLine(result)).toBe("model_options.max_tokens: 4096 (changed) — 0/6 passes, p=0.031");
  });

  test("five for B (what --quick can give at most): kept, p=0.063", () => {
    const result = judgeSetting(maxTokens, ...arms(5, () => false, () => true));
    expect(result.changed).toBe(false);
    expect(settingLine(result)).toBe("model_options.max_tokens: 1024 (kept) — 0/5 passes, p=0.063");
  });

  test("six for A: kept, however small p is", () => {
    const result = judgeSetting(maxTokens, ...arms(12, (i) => i < 6, () => false));
    expect(result.p).toBeLessThan(0.05);
    expect(result).toMatchObject({ changed: false, value: 1024, passesA: 6, passesB: 0 });
  });

  test("an unset default (temperature: the server's) is said as unset", () => {
    const temperature = TUNE_SETTINGS.find((setting) => setting.key === "model_options.temperature")!;
    expect(settingLine(judgeSetting(temperature, ...arms(3, () => true, () => true)))).toBe("model_options.temperature: unset (the server's default) (kept) — 3/3 passes, p=1.000");
  });
});

describe("the settings are data the config takes", () => {
  test("every setting's alternative and every default pass the config schema, and differ", () => {
    for (const setting of TUNE_SETTINGS) {
      const config = armConfig({ model_name: "m" }, setting);
      expect(() => ConfigSchema.parse(config)).not.toThrow();
      expect(setting.alternative).not.toEqual(defaultOf(setting.key));
      expect(armName(setting)).toBe(`${setting.key}=${String(setting.alternative)}`);
    }
    expect(armConfig({ model_options: { num_ctx: 32768 } }, maxTokens)).toEqual({ model_options: { num_ctx: 32768, max_tokens: 4096 } });
  });
});

const reply = (finish: string, calls = 0): AgentEvent => ({ kind: "model_reply", step: 1, text: "so so so", text_chars: 8, tool_calls: calls, prompt_tokens: 1000, gen_tokens: 100, tokens_per_second: 50, finish_reason: finish, cached_tokens: 800, prefill_ms: 100 });
const stop = (status: string): AgentEvent => ({ kind: "stop", status: status as never, steps: 1, tool_calls: 0, answer: "", reason: "", elapsed_ms: 1, prompt_tokens: 1, gen_tokens: 1 });

describe("traits from the events", () => {
  test("a run whose replies were cut at the reply cap is cut, not narration", () => {
    const counts = countTraits([[reply("length"), reply("length"), stop("truncated")]]);
    expect(counts).toMatchObject({ narrated: 0, cutReplies: 2 });
    expect(namedTraits(counts).map((trait) => trait.name)).toEqual(["its replies run past the reply cap"]);
  });

  test("a run that ended its reply itself without a call narrated; no setting fixes it", () => {
    const counts = countTraits([[reply("stop"), stop("completed")]]);
    expect(counts.narrated).toBe(1);
    expect(namedTraits(counts)).toEqual([{ name: "narrates instead of acting", detail: "1 of 1 runs answered in prose without calling a tool", fix: null }]);
  });

  test("speed as the server counts it: prefill of the tokens not reused, generation, the share reused", () => {
    const counts = countTraits([[reply("stop"), reply("stop")], [], [], []], [120, null, 80, 400]);
    // (2000 prompt - 1600 cached) tokens in 200 ms; the median of the runs' first-token waits.
    expect(counts).toMatchObject({ prefillPerSecond: 2000, generationPerSecond: 50, reusedShare: 0.8, firstTokenMs: 120 });
    expect(countTraits([[reply("stop")]]).firstTokenMs).toBeNull();
  });
});
