import type { AgentEvent } from "../protocol/events.ts";
import { argumentsText } from "../protocol/messages.ts";
import { drive } from "./drive.ts";
import { Run, type SubRunOutcome, type SubRunRequest } from "./run.ts";
import type { Stop } from "./stop-rules.ts";

/** How many of a stopped sub-run's calls its parent is told of, and how much of each one's arguments. */
const CALLS_NAMED = 12;
const ARGUMENTS_SHOWN = 80;

/**
 * How large the parent's system prompt may be, against the rest of the sub-run's first prompt
 * (its tools block and its message), for the sub-run to start with it (subRunPrompt).
 */
export const SHARED_PROMPT_RATIO = 0.75;

/** What opens a sub-run's system prompt when the parent's is too large to share. */
export const SUB_RUN_OPENING = "[glassbox] A sub-run: read-only, it answers the run that asked.";

/**
 * The sub-run behind `explore`: a second Run with a fresh record, the read-only tools and the
 * parent's prompt (so the server's cache keeps the prompt's fixed start), driven here with every
 * event tagged `sub_run` (the explore call's id). Its answer alone goes back, or, when it stopped
 * first, why and what it had so far.
 */
export async function* exploreSubRun(parent: Run, request: SubRunRequest): AsyncGenerator<AgentEvent, SubRunOutcome> {
  const task = exploreTask(request.question);
  const input = parent.childInput(request, task);
  const run = new Run({ ...input, systemPrompt: subRunPrompt(input.systemPrompt, JSON.stringify(input.checkpoint.declarations()).length + task.length) });
  const stop = yield* tagged(drive(run), request.callId);
  return { text: resultText(stop, run), steps: run.steps, calls: run.calls, promptTokens: run.promptTokens, genTokens: run.genTokens };
}

/** What a sub-run is told before its question. */
const PREAMBLE =
  "[glassbox] You are a sub-run: find the answer to the question below for the run that asked it. Search and read; you cannot change files. Then call finish with the answer (files, lines, names, facts): it is all the asking run will see.";

/**
 * The sub-run's system prompt: the parent's own (its fixed layers, which the server then has
 * cached), unless that would make llama-server drop the parent's cached prompt. With one slot,
 * llama-server saves a slot's prompt to its RAM cache before another overwrites it, and brings it
 * back for the request that matches it, only when the two share less than half of the prompt
 * held (`f_keep < 0.5` in its slot choice): measured, a sub-run sharing the parent's tools block
 * cost the parent 11k of 12.5k tokens again after a short sub-run, and one sharing a 4k-token
 * system prompt cost it 6.9k. The tools part after the first tool (SUB_RUN_TOOLS), so the
 * prompts share the system prompt; that must stay under half of the sub-run's (its tools and
 * message, `rest` characters, with a margin); a larger one (a map layer, a long AGENTS.md) is
 * opened by a line of the sub-run's own, so nothing is shared and both are kept.
 */
export function subRunPrompt(systemPrompt: string, rest: number): string {
  return systemPrompt.length <= SHARED_PROMPT_RATIO * rest ? systemPrompt : `${SUB_RUN_OPENING}\n\n${systemPrompt}`;
}

/** The sub-run's first message: what it is for, then the question. */
export function exploreTask(question: string): string {
  return `${PREAMBLE}\n\n${question}`;
}

/** The question in a sub-run's first message (its run_start's task). */
export function questionOf(task: string): string {
  return task.startsWith(`${PREAMBLE}\n\n`) ? task.slice(PREAMBLE.length + 2) : task;
}

async function* tagged(events: AsyncGenerator<AgentEvent, Stop>, callId: string): AsyncGenerator<AgentEvent, Stop> {
  try {
    for (;;) {
      const next = await events.next();
      if (next.done) return next.value;
      yield { ...next.value, sub_run: callId };
    }
  } finally {
    await events.return(undefined as never);
  }
}

/**
 * What the parent reads: a completed sub-run's answer alone; otherwise that it stopped, its
 * status and why, its last words, and the calls it had made (so the parent need not repeat them).
 */
export function resultText(stop: Stop, run: Run): string {
  const answer = (stop.answer ?? run.lastText).trim();
  if (stop.status === "completed") return answer || "The sub-run finished without an answer.";
  const found = answer ? `What it had found so far:\n${answer}` : "It had written no answer yet.";
  const calls = callsMade(run);
  const looked = calls.length ? `\nIts calls: ${calls.join("; ")}.` : "";
  return `The sub-run stopped before it answered: ${stop.status} (${stop.reason}).\n${found}${looked}`;
}

function callsMade(run: Run): string[] {
  const calls = run.record.flatMap((message) => (message.role === "assistant" ? (message.tool_calls ?? []) : []));
  const named = calls.slice(-CALLS_NAMED).map((call) => `${call.name} ${shorten(argumentsText(call.arguments).replace(/\s+/g, " "))}`);
  return calls.length > CALLS_NAMED ? [`${calls.length - CALLS_NAMED} earlier`, ...named] : named;
}

function shorten(text: string): string {
  return text.length > ARGUMENTS_SHOWN ? `${text.slice(0, ARGUMENTS_SHOWN - 1)}…` : text;
}
