import { expect, test } from "bun:test";
import { DEFAULT_LIMITS } from "../../src/protocol/limits.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { emptyView, fold, meters } from "../../src/tui/run-view.ts";
import { meterLine } from "../../src/tui/meters.ts";

const start: AgentEvent = { kind: "run_start", run_id: "r", model: "m", workspace: "/w", limits: DEFAULT_LIMITS, tools: [], task: "t", started_at: "", prompt_layers: [], tool_protocol: "native" };

function play(events: Array<[AgentEvent, number]>) {
  let view = emptyView(DEFAULT_LIMITS);
  for (const [event, at] of events) view = fold(view, event, at);
  return view;
}

test("meters move while a reply streams: steps, tokens and context (the prompt as estimated, the pieces so far), tokens per second", () => {
  const view = play([
    [start, 0],
    [{ kind: "model_info", context_size: 8192 }, 10],
    [{ kind: "model_request", step: 1, messages: 2, transcript_chars: 4000, estimated_prompt_tokens: 1000 }, 100],
    ...Array.from({ length: 40 }, (_, i): [AgentEvent, number] => [{ kind: "model_delta", step: 1, channel: "text", text: "w ", tokens: i + 1 }, 100 + (i + 1) * 25]),
  ]);
  const shown = Object.fromEntries(meters(view, 1200).map((meter) => [meter.label, meter]));
  expect(shown.steps).toMatchObject({ value: 1, limit: DEFAULT_LIMITS.max_steps });
  expect(shown.context).toMatchObject({ value: 1040, limit: 8192 });
  expect(shown.tokens).toMatchObject({ value: 1040, limit: null });
  expect(shown["tok/s"]!.value).toBeCloseTo(40, 0);
  expect(shown.time).toMatchObject({ value: 1, limit: DEFAULT_LIMITS.deadline_seconds });
});

test("a reply's reported usage replaces the estimates; stopped runs freeze the clock", () => {
  const view = play([
    [start, 0],
    [{ kind: "model_request", step: 1, messages: 2, transcript_chars: 4000, estimated_prompt_tokens: 1000 }, 0],
    [{ kind: "model_reply", step: 1, text: "", text_chars: 0, tool_calls: 1, prompt_tokens: 900, gen_tokens: 30, tokens_per_second: 55, finish_reason: "tool_calls", cached_tokens: null, prefill_ms: null }, 500],
    [{ kind: "tool_call", step: 1, id: "c1", tool: "read_file", arguments: "{}", decision: "refused", reason: "x", result_chars: 10, result: "Refused: x" }, 600],
    [{ kind: "stop", status: "step_limit", steps: 1, tool_calls: 1, answer: "", reason: "r", elapsed_ms: 3000, prompt_tokens: 900, gen_tokens: 30 }, 3000],
  ]);
  expect(view.state).toBe("stopped: step_limit");
  const shown = Object.fromEntries(meters(view, 60_000).map((meter) => [meter.label, meter]));
  expect(shown.tokens!.value).toBe(930);
  expect(shown.calls!.value).toBe(1);
  expect(shown.context!.value).toBe(930);
  expect(shown.time!.value).toBe(3);
  expect(shown["tok/s"]!.value).toBe(55);
});

test("a window known before the first run (a scripted model's num_ctx) gives the context meter its limit from the start, and a new run keeps it", () => {
  let view = emptyView(DEFAULT_LIMITS, 8192);
  const meter = () => meters(view, 0).find((m) => m.label === "context")!;
  expect(meter()).toMatchObject({ value: 0, limit: 8192 });
  view = fold(view, start, 0);
  view = fold(view, { kind: "model_request", step: 1, messages: 2, transcript_chars: 12000, estimated_prompt_tokens: 3000 }, 0);
  expect(meter()).toMatchObject({ value: 3000, limit: 8192 });
  expect(meterLine(meter(), 40)).toBe(`context  ${"█".repeat(8)}${"░".repeat(13)} 3.0k/8.2k`);
});

test("the cache row: the last prompt's reused share and prefill time, the run's total prefill; unreported figures are ?", () => {
  const reply = (step: number, prompt: number, cached: number | null, prefill: number | null): [AgentEvent, number] => [
    { kind: "model_reply", step, text: "", text_chars: 0, tool_calls: 1, prompt_tokens: prompt, gen_tokens: 10, tokens_per_second: 20, finish_reason: "tool_calls", cached_tokens: cached, prefill_ms: prefill },
    step * 1000,
  ];
  const row = (view: ReturnType<typeof play>) => meterLine(meters(view, 0).find((meter) => meter.label === "cache")!, 40);
  expect(row(play([[start, 0]]))).toBe("cache    —");
  // llama.cpp: 2,300 of 2,500 tokens from the cache, 650 ms for the rest; then a step that reused nothing.
  expect(row(play([[start, 0], reply(1, 1000, 0, 3200), reply(2, 2500, 2300, 650)]))).toBe("cache    92% reused 0.65s · run 3.9s");
  expect(row(play([[start, 0], reply(1, 1000, 0, 3200), reply(2, 2500, 2300, 650), reply(3, 4000, 0, 12_400)]))).toBe("cache    0% reused 12s · run 16s");
  // Ollama: a prefill time, no cache figure.
  expect(row(play([[start, 0], reply(1, 1000, null, 301)]))).toBe("cache    ? reused 0.30s · run 0.30s");
  // A new run starts its total over.
  expect(row(play([[start, 0], reply(1, 1000, 0, 3200), [start, 5000]]))).toBe("cache    —");
});

test("a sub-run's events move the run's meters (its steps, calls and tokens are the run's); its start and stop do not reset or stop them", () => {
  const tagged = <E extends AgentEvent>(event: E): E => ({ ...event, sub_run: "e1" });
  const view = play([
    [start, 0],
    [{ kind: "model_request", step: 1, messages: 2, transcript_chars: 400, estimated_prompt_tokens: 100 }, 0],
    [{ kind: "model_reply", step: 1, text: "", text_chars: 0, tool_calls: 1, prompt_tokens: 100, gen_tokens: 10, tokens_per_second: null, finish_reason: "tool_calls", cached_tokens: null, prefill_ms: null }, 100],
    [tagged(start), 200],
    [tagged({ kind: "model_request", step: 2, messages: 2, transcript_chars: 300, estimated_prompt_tokens: 80 }), 300],
    [tagged({ kind: "model_reply", step: 2, text: "", text_chars: 0, tool_calls: 1, prompt_tokens: 80, gen_tokens: 5, tokens_per_second: null, finish_reason: "tool_calls", cached_tokens: null, prefill_ms: null }), 400],
    [tagged({ kind: "tool_call", step: 2, id: "s1", tool: "read_file", arguments: "{}", decision: "allowed", reason: "", result_chars: 1, result: "x" }), 500],
  ]);
  expect(view.state).toBe("running tools");
  const shown = Object.fromEntries(meters(view, 600).map((meter) => [meter.label, meter]));
  expect(shown.steps!.value).toBe(2);
  expect(shown.calls!.value).toBe(1);
  expect(shown.tokens!.value).toBe(195);
  expect(shown.time!.value).toBe(1);
  const exploring = fold(fold(emptyView(DEFAULT_LIMITS), start, 0), tagged(start), 10);
  expect(exploring.state).toBe("exploring (sub-run)");
  const after = fold(view, tagged({ kind: "stop", status: "completed", steps: 1, tool_calls: 1, answer: "a", reason: "r", elapsed_ms: 300, prompt_tokens: 80, gen_tokens: 5 }), 700);
  expect(after).toMatchObject({ state: "running tools", endedAt: null, steps: 2, calls: 1 });
});
