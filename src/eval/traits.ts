import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent, EventOf } from "../protocol/events.ts";
import { cutOffAtCap } from "../core/reply-faults.ts";
import { runFolder } from "./runner.ts";

/** What a model does, read from its runs' events; `fix` names the setting that helps, null when none does. */
export interface Trait {
  name: string;
  detail: string;
  fix: string | null;
}

/** Counts over a set of runs, from their events. */
export interface TraitCounts {
  runs: number;
  nativeCalls: number;
  textCalls: number;
  /** Runs that called no tool and whose replies were not cut off: they answered in prose. */
  narrated: number;
  exactEdits: number;
  looseEdits: number;
  refusedEdits: number;
  stallNotes: number;
  repeatStops: number;
  cutReplies: number;
  summaries: number;
  windowStops: number;
  /** Server-counted speed: prompt tokens prefilled per second, generated per second, the share of prompt tokens reused from the cache. */
  prefillPerSecond: number | null;
  /** The median of the runs' median waits for a reply's first piece, in ms. */
  firstTokenMs: number | null;
  generationPerSecond: number | null;
  reusedShare: number | null;
}

/** The events of the runs `verdicts` name, in a results folder. */
export function runEvents(folder: string, runs: Array<{ task: string; seed: number }>): AgentEvent[][] {
  return runs.map(({ task, seed }) => {
    const path = join(runFolder(folder, task, seed), "events.jsonl");
    if (!existsSync(path)) return [];
    return readFileSync(path, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as AgentEvent);
  });
}

const ofKind = <K extends AgentEvent["kind"]>(events: AgentEvent[], kind: K) => events.filter((event): event is EventOf<K> => event.kind === kind);

/** Sums the events of each run into the counts a trait is named from; `firstTokens`: each run's median wait for a first token (its verdict's). */
export function countTraits(runs: AgentEvent[][], firstTokens: Array<number | null | undefined> = []): TraitCounts {
  const all = runs.flat();
  const calls = ofKind(all, "tool_call");
  const edits = calls.filter((call) => call.tool === "edit_file");
  const replies = ofKind(all, "model_reply");
  const stops = ofKind(all, "stop");
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const prompt = sum(replies.map((reply) => reply.prompt_tokens ?? 0));
  const cached = sum(replies.map((reply) => reply.cached_tokens ?? 0));
  const prefillMs = sum(replies.map((reply) => reply.prefill_ms ?? 0));
  const speeds = replies.flatMap((reply) => (reply.tokens_per_second ? [reply.tokens_per_second] : []));
  return {
    runs: runs.length,
    nativeCalls: calls.filter((call) => !call.from_text).length,
    textCalls: calls.filter((call) => call.from_text).length,
    narrated: runs.filter((events) => ofKind(events, "tool_call").length === 0 && !ofKind(events, "model_reply").some(cutOffAtCap) && events.length > 0).length,
    exactEdits: edits.filter((call) => call.decision === "allowed" && !call.result.includes("matched loosely")).length,
    looseEdits: edits.filter((call) => call.decision === "allowed" && call.result.includes("matched loosely")).length,
    refusedEdits: edits.filter((call) => call.decision === "refused").length,
    stallNotes: ofKind(all, "stall").length,
    repeatStops: stops.filter((stop) => stop.status === "repeat_limit").length,
    cutReplies: replies.filter(cutOffAtCap).length,
    summaries: ofKind(all, "context_summarized").length,
    windowStops: stops.filter((stop) => stop.status === "context_limit").length + ofKind(all, "truncation_suspected").length,
    firstTokenMs: median(firstTokens.flatMap((ms) => (typeof ms === "number" ? [ms] : []))),
    prefillPerSecond: prefillMs > 0 ? Math.round(((prompt - cached) / prefillMs) * 1000) : null,
    generationPerSecond: speeds.length ? Math.round(sum(speeds) / speeds.length) : null,
    reusedShare: prompt > 0 && replies.some((reply) => reply.cached_tokens !== null) ? cached / prompt : null,
  };
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

/** The traits worth naming, each with what fixes it; a model that does none of them gets "none found". */
export function namedTraits(counts: TraitCounts): Trait[] {
  const traits: Trait[] = [];
  const calls = counts.nativeCalls + counts.textCalls;
  if (counts.textCalls > 0) traits.push({ name: "writes its tool calls as text", detail: `${counts.textCalls} of ${calls} calls were written in the reply's text`, fix: "text_tool_calls (on by default) recovers them" });
  if (counts.narrated > 0) traits.push({ name: "narrates instead of acting", detail: `${counts.narrated} of ${counts.runs} runs answered in prose without calling a tool`, fix: null });
  if (counts.looseEdits > 0) traits.push({ name: "its edits drift in whitespace", detail: `${counts.looseEdits} of ${counts.exactEdits + counts.looseEdits + counts.refusedEdits} edits matched only loosely`, fix: "components.loose_edits (on by default) lands them" });
  if (counts.stallNotes > 0 || counts.repeatStops > 0) traits.push({ name: "loops", detail: `${counts.stallNotes} stall note(s); ${counts.repeatStops} run(s) stopped for repeating a call`, fix: null });
  if (counts.cutReplies > 0) traits.push({ name: "its replies run past the reply cap", detail: `${counts.cutReplies} replies cut off at max_tokens`, fix: "model_options.max_tokens: a higher cap" });
  if (counts.windowStops > 0) traits.push({ name: "outgrows the window", detail: `${counts.windowStops} run(s) hit the window`, fix: "context.soft_ratio (compacts sooner) or model_options.num_ctx" });
  return traits;
}

/** The lines tune prints of the baseline's runs: how the model calls, acts, edits, loops, fits, and how fast the server is. */
export function traitLines(counts: TraitCounts, traits: Trait[]): string[] {
  const percent = (share: number | null) => (share === null ? "not reported" : `${Math.round(share * 100)}%`);
  const rate = (value: number | null) => (value === null ? "not reported" : `${value} tok/s`);
  return [
    `tool calls: ${counts.nativeCalls} native, ${counts.textCalls} written as text`,
    `acts: ${counts.runs - counts.narrated} of ${counts.runs} runs called tools; ${counts.narrated} answered in prose`,
    `edits: ${counts.exactEdits} exact, ${counts.looseEdits} loose, ${counts.refusedEdits} refused`,
    `loops: ${counts.stallNotes} stall note(s), ${counts.repeatStops} run(s) stopped repeating a call`,
    `reply cap: ${counts.cutReplies} replies cut off (never read as prose)`,
    `window: ${counts.windowStops} run(s) hit it, ${counts.summaries} summaries`,
    `speed: first token ${counts.firstTokenMs === null ? "not measured" : `${counts.firstTokenMs} ms`}, prefill ${rate(counts.prefillPerSecond)}, generation ${rate(counts.generationPerSecond)}, prompt reused from the cache ${percent(counts.reusedShare)}`,
    ...(traits.length ? traits.map((trait) => `trait: ${trait.name} (${trait.detail}); ${trait.fix ?? "no setting fixes it: pick another model (or another quantization)"}`) : ["trait: none of the known ones"]),
  ];
}
