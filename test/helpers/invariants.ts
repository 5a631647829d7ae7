import { expect } from "bun:test";
import type { AgentEvent, EventOf } from "../../src/protocol/events.ts";
import type { Message } from "../../src/protocol/messages.ts";
import type { ScriptedRun } from "./run.ts";

/**
 * What holds for every run, whatever ended it: run_start first, exactly one stop of its own and it
 * is last, one tool_call event per call the model made, and the stop's counts match the events
 * (a sub-run's included: they are charged to the run). Each sub-run's events are well formed too.
 */
export function expectWellFormedEvents(events: ReadonlyArray<AgentEvent | Record<string, any>>): void {
  expect(events[0]?.kind).toBe("run_start");
  expect(events.filter((event) => event.kind === "stop" && event.sub_run === undefined)).toHaveLength(1);
  for (const id of new Set(events.flatMap((event) => (event.sub_run === undefined ? [] : [event.sub_run as string])))) {
    const sub = events.filter((event) => event.sub_run === id);
    expect(sub[0]?.kind).toBe("run_start");
    expect(sub.filter((event) => event.kind === "stop")).toHaveLength(1);
    expect(sub.at(-1)?.kind).toBe("stop");
  }
  expect(events.at(-1)?.kind).toBe("stop");
  const stop = events.at(-1) as EventOf<"stop">;
  const requests = events.filter((event) => event.kind === "model_request");
  expect(stop.steps).toBe(requests.length);
  for (const reply of events.filter((event) => event.kind === "model_reply") as EventOf<"model_reply">[]) {
    const answered = events.filter((event) => event.kind === "tool_call" && event.step === reply.step);
    expect(answered).toHaveLength(reply.tool_calls);
  }
  // Every call that ran through the checkpoint counts; a call a limit cut may or may not (the
  // call that trips max_repeat counts, one after the budget ran out does not). Tests pin exact numbers.
  const calls = events.filter((event) => event.kind === "tool_call") as EventOf<"tool_call">[];
  const checked = calls.filter((call) => call.decision !== "stopped");
  expect(stop.tool_calls).toBeGreaterThanOrEqual(checked.length);
  expect(stop.tool_calls).toBeLessThanOrEqual(calls.length);
}

/** Every assistant tool call in every request is followed by exactly one tool message with its id. */
export function expectEveryCallAnswered(messages: readonly Message[]): void {
  let expectedTools = 0;
  messages.forEach((message, index) => {
    if (message.role !== "assistant" || !message.tool_calls?.length) return;
    const count = message.tool_calls.length;
    expectedTools += count;
    const answers = messages.slice(index + 1, index + 1 + count);
    expect(answers.map((answer) => answer.role)).toEqual(Array(count).fill("tool"));
    expect(answers.map((answer) => (answer as { tool_call_id: string }).tool_call_id)).toEqual(message.tool_calls.map((call) => call.id));
    expect(messages[index + 1 + count]?.role).not.toBe("tool");
  });
  expect(messages.filter((message) => message.role === "tool")).toHaveLength(expectedTools);
}

export function expectWellFormedRun(run: ScriptedRun): void {
  expectWellFormedEvents(run.events);
  for (const request of run.model.requests) expectEveryCallAnswered(request.messages);
}

/** The tool messages the model was sent in the request after step `step` (1-based). */
export function toolMessagesAfter(run: ScriptedRun, step: number): Array<Extract<Message, { role: "tool" }>> {
  const request = run.model.requests[step];
  if (!request) throw new Error(`the model got no request after step ${step}`);
  const messages = request.messages;
  const lastAssistant = messages.findLastIndex((message) => message.role === "assistant");
  return messages.slice(lastAssistant + 1).filter((message): message is Extract<Message, { role: "tool" }> => message.role === "tool");
}
