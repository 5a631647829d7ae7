// Each stop rule on its own, as data: where a run stands -> the stop it gets (or none).
import { describe, expect, test } from "bun:test";
import { DEFAULT_LIMITS, type Limits } from "../../src/protocol/limits.ts";
import { ModelError } from "../../src/protocol/model.ts";
import { USER_STOP, modelFailure, oversizedBatch, repeatStop, stopBeforeCall, stopBeforeModel, type RunStanding } from "../../src/core/stop-rules.ts";

const limits: Limits = { ...DEFAULT_LIMITS, max_steps: 3, max_tool_calls: 5, max_tokens: 1000, deadline_seconds: 60, max_repeat: 2, max_calls_per_reply: 4 };
const fresh: RunStanding = { steps: 0, calls: 0, tokens: 0, elapsedSeconds: 0, aborted: false };
const at = (standing: Partial<RunStanding>): RunStanding => ({ ...fresh, ...standing });

describe("before the model", () => {
  test.each([
    ["a fresh run goes on", at({}), null],
    ["the user's stop", at({ aborted: true }), "interrupted"],
    ["the deadline", at({ elapsedSeconds: 60 }), "deadline"],
    ["max_steps", at({ steps: 3 }), "step_limit"],
    ["max_tokens", at({ tokens: 1000 }), "token_limit"],
    ["the user's stop before the deadline", at({ aborted: true, elapsedSeconds: 99 }), "interrupted"],
    ["the deadline before max_steps", at({ elapsedSeconds: 99, steps: 9 }), "deadline"],
  ] as const)("%s", (_, standing, status) => {
    expect(stopBeforeModel(standing, limits)?.status ?? null).toBe(status);
  });

  test("max_tokens 0 is no limit", () => {
    expect(stopBeforeModel(at({ tokens: 10 ** 9 }), { ...limits, max_tokens: 0 })).toBeNull();
  });

  test("the reason names the figures", () => {
    expect(stopBeforeModel(at({ steps: 3 }), limits)?.reason).toBe("the model replied 3 times, the most allowed (max_steps)");
    expect(stopBeforeModel(at({ tokens: 1200 }), limits)?.reason).toBe("1200 tokens used of max_tokens 1000");
  });
});

describe("before a call", () => {
  test.each([
    ["a fresh run goes on", at({}), null],
    ["max_tool_calls", at({ calls: 5 }), "call_limit"],
    ["the deadline", at({ elapsedSeconds: 61 }), "deadline"],
    ["the user's stop", at({ aborted: true }), "interrupted"],
    ["max_tool_calls before the user's stop", at({ calls: 5, aborted: true }), "call_limit"],
  ] as const)("%s", (_, standing, status) => {
    expect(stopBeforeCall(standing, limits)?.status ?? null).toBe(status);
  });

  test("the same call past max_repeat stops the run; up to it, not", () => {
    expect(repeatStop("read_file", 2, limits)).toBeNull();
    expect(repeatStop("read_file", 3, limits)).toEqual({ status: "repeat_limit", reason: "read_file was called 3 times with the same arguments (max_repeat 2)" });
  });

  test("more calls in a reply than max_calls_per_reply are refused with a sentence", () => {
    expect(oversizedBatch(4, limits)).toBeNull();
    expect(oversizedBatch(5, limits)).toContain("at most 4 are allowed per reply");
  });
});

describe("a failed reply", () => {
  test.each([
    ["the user's stop wins", at({ aborted: true }), new Error("socket closed"), "interrupted"],
    ["then the deadline", at({ elapsedSeconds: 60 }), new Error("socket closed"), "deadline"],
    ["a ModelError keeps its status", at({}), new ModelError("the window is full", "context_limit"), "context_limit"],
    ["anything else is model_error", at({}), "a string", "model_error"],
  ] as const)("%s", (_, standing, error, status) => {
    expect(modelFailure(error, standing, limits).status).toBe(status);
  });

  test("the user's stop is one sentence", () => {
    expect(USER_STOP).toEqual({ status: "interrupted", reason: "the user stopped the run" });
  });
});
