import type { ToolCallRequest } from "../protocol/messages.ts";
import type { ModelDelta } from "../protocol/model.ts";
import { TextPieces } from "./text-pieces.ts";
import { ARGUMENT_LIMITS, valueNestedDeeperThan } from "../protocol/argument-limits.ts";
import { jsonText } from "../protocol/canonical.ts";

export interface AssembledReply {
  content: string;
  thinking: string;
  tool_calls: ToolCallRequest[];
  prompt_tokens: number | null;
  gen_tokens: number | null;
  tokens_per_second: number | null;
  /** Prompt tokens the server reused from its cache, and its prefill time: null when it does not say. */
  cached_tokens: number | null;
  prefill_ms: number | null;
  finish_reason: string | null;
}

/**
 * Puts a streamed reply back together. Tool calls are keyed by index: id and name come first,
 * and argument text may arrive in fragments that are concatenated.
 */
export class ReplyBuilder {
  // Pieces joined once at the end: appending a million tokens with += leaves a million string fragments alive.
  private content = new TextPieces();
  private thinking = new TextPieces();
  private calls = new Map<number, { id?: string; name?: string; arguments?: unknown; from_text?: true }>();
  private usage: Omit<Extract<ModelDelta, { type: "usage" }>, "type" | "timings"> | null = null;
  private finishReason: string | null = null;

  add(delta: ModelDelta): void {
    switch (delta.type) {
      case "text":
        this.content.add(delta.text);
        break;
      case "thinking":
        this.thinking.add(delta.text);
        break;
      case "tool_call": {
        const call = this.calls.get(delta.index) ?? {};
        if (delta.id) call.id = delta.id;
        if (delta.name) call.name = (call.name ?? "") + delta.name;
        if (delta.arguments !== undefined) {
          call.arguments =
            typeof delta.arguments === "string" && typeof call.arguments === "string"
              ? call.arguments + delta.arguments
              : delta.arguments;
        }
        this.calls.set(delta.index, call);
        break;
      }
      case "usage":
        this.usage = { prompt_tokens: delta.prompt_tokens, gen_tokens: delta.gen_tokens, tokens_per_second: delta.tokens_per_second, cached_tokens: delta.cached_tokens, prefill_ms: delta.prefill_ms };
        break;
      case "text_calls":
        // The calls become protocol calls with ids; the text keeps only the prose before them.
        this.content.take();
        this.content.add(delta.prose);
        for (const call of delta.calls) this.calls.set(this.calls.size, { name: call.name, arguments: call.arguments, from_text: true });
        break;
      case "notice":
      case "retry":
        break;
      case "done":
        this.finishReason = delta.finish_reason;
        break;
    }
  }

  /** The reply put together. Call it once: the builder hands its text over and keeps none. */
  result(step: number): AssembledReply {
    const ordered = [...this.calls.entries()].sort(([a], [b]) => a - b);
    // Every tool message names its call by id: a missing or repeated id would make them ambiguous.
    const used = new Set<string>();
    const uniqueId = (id: string | undefined, index: number) => {
      let chosen = id || `s${step}c${index + 1}`;
      while (used.has(chosen)) chosen = `${chosen}-${index + 1}`;
      used.add(chosen);
      return chosen;
    };
    return {
      content: this.content.take(),
      thinking: this.thinking.take(),
      tool_calls: ordered.map(([index, call]) => ({
        id: uniqueId(call.id, index),
        name: call.name ?? "",
        arguments: writable(call.arguments ?? {}),
        ...(call.from_text ? { from_text: true as const } : {}),
      })),
      prompt_tokens: this.usage?.prompt_tokens ?? null,
      gen_tokens: this.usage?.gen_tokens ?? null,
      tokens_per_second: this.usage?.tokens_per_second ?? null,
      cached_tokens: this.usage?.cached_tokens ?? null,
      prefill_ms: this.usage?.prefill_ms ?? null,
      finish_reason: this.finishReason,
    };
  }
}

/**
 * Arguments that came as a value (Ollama's, a recovered text call's, a script's) nested past the
 * limit are carried as their JSON text: every later step (the wire log, a recording, the session,
 * the event log) writes them with JSON.stringify, which overflows the stack on such a value. The
 * run refuses them by that text, as it does a protocol call's.
 */
function writable(args: unknown): unknown {
  return typeof args !== "string" && valueNestedDeeperThan(args, ARGUMENT_LIMITS.max_depth) ? jsonText(args) : args;
}
