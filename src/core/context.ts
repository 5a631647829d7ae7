import { clip } from "./clip.ts";
import type { ContextPolicy } from "./discipline.ts";
import type { AgentEvent } from "../protocol/events.ts";
import { messageChars, type Message } from "../protocol/messages.ts";
import type { TodoItem } from "../tools/tool.ts";
import { ModelError, type ToolDeclaration } from "../protocol/model.ts";

/**
 * The context manager: what the model is sent of the record. A server keeps the previous
 * prompt's cache and reprocesses only what follows the longest common prefix, so the view only
 * grows at its end between compactions. A compaction (old results elided in one batch, or the
 * middle replaced by a summary) is decided once, recorded in an event, and kept: an elided result
 * keeps its elided form and a summary its text, so a continued session rebuilds the same view.
 */

/** The middle of the conversation, replaced in the view by one message the model wrote. */
export interface Summary {
  /** The record index where the kept tail begins; record[1 .. upTo) is summarized. */
  upTo: number;
  /** How many record messages the summaries so far stand for. */
  messages: number;
  /** The message that stands for the middle, frozen with the plan as it was then. */
  note: string;
}

/** What was compacted: the elided results (tool_call_id → the length they were cut to) and the summary. */
export interface ContextState {
  elided: Map<string, number>;
  summary: Summary | null;
}

export const emptyContext = (): ContextState => ({ elided: new Map(), summary: null });

/** The compactions a saved session's events record, in order: a continued session's view is the same. */
export function restoreContext(events: Iterable<AgentEvent>): ContextState {
  const state = emptyContext();
  for (const event of events) {
    // A sub-run's compactions were of its own record.
    if (event.sub_run !== undefined) continue;
    // A session saved before these fields existed (or damaged) restores no compaction: the view is then whole, as it was.
    if (event.kind === "context_elided" && Array.isArray(event.ids) && Number.isInteger(event.cap)) for (const id of event.ids) state.elided.set(String(id), event.cap);
    if (event.kind === "context_summarized" && Number.isInteger(event.up_to) && event.up_to >= 1 && typeof event.note === "string") {
      state.summary = { upTo: event.up_to, messages: (state.summary?.messages ?? 0) + event.messages, note: event.note };
    }
  }
  return state;
}

export function transcriptChars(messages: readonly Message[]): number {
  return messages.reduce((sum, message) => sum + messageChars(message), 0);
}

/** The words that open a summary's message, before the summary's own text. */
export const SUMMARY_NOTE_MARK = "earlier messages were replaced by this summary, which you wrote:\n";

export const SUMMARY_REQUEST =
  "[glassbox] The conversation is near the context window. Summarize the work so far for yourself in under 200 words: " +
  "what the task is, what you tried, what you found (file names, function names, errors), what you changed, and what remains. " +
  "Reply with the summary only; do not call tools.";

/** The summary's message; the plan as it stands now is written into it and stays as written. */
export function summaryNote(messages: number, text: string, todo: readonly TodoItem[]): string {
  const plan = todo.length ? `\n\nYour todo list:\n${todo.map((item) => `[${item.status}] ${item.text}`).join("\n")}` : "";
  return `[glassbox] ${messages} ${SUMMARY_NOTE_MARK}${text}${plan}`;
}

/**
 * What the model is sent: the system prompt and the record, the summarized middle (if any)
 * replaced by the summary's message, elided results in their elided form. The record itself is
 * never edited; the same record and state always give the same view.
 */
export function renderView(systemPrompt: string, record: readonly Message[], state: ContextState): Message[] {
  const head: Message[] = systemPrompt ? [{ role: "system", content: systemPrompt }] : [];
  const { summary } = state;
  const body = summary ? [record[0]!, { role: "user", content: summary.note } as Message, ...record.slice(summary.upTo)] : record;
  return [...head, ...body.map((message) => elidedForm(message, state.elided))];
}

function elidedForm(message: Message, elided: ReadonlyMap<string, number>): Message {
  if (message.role !== "tool") return message;
  const cap = elided.get(message.tool_call_id);
  return cap === undefined || message.content.length <= cap ? message : { ...message, content: clip(message.content, cap) };
}

/**
 * One batch of elision: the newest results stay whole while they fit in `whole_share` of the
 * budget (at least `min_whole` of them, whatever their size); every older result still whole is
 * cut to `elided_chars`. The task, the model's own messages and the plan are never cut.
 */
export function elisionBatch(view: readonly Message[], elided: ReadonlyMap<string, number>, policy: ContextPolicy, budgetChars: number): string[] {
  const results = view.filter((message): message is Extract<Message, { role: "tool" }> => message.role === "tool").reverse();
  const batch: string[] = [];
  let wholeChars = 0;
  let protecting = true;
  results.forEach((result, newest) => {
    if (protecting && (newest < policy.min_whole || wholeChars + result.content.length <= budgetChars * policy.whole_share)) {
      wholeChars += result.content.length;
      return;
    }
    protecting = false;
    if (!elided.has(result.tool_call_id) && result.content.length > policy.elided_chars) batch.push(result.tool_call_id);
  });
  return batch;
}

/**
 * A summary's range: from after the task (or the last summary) up to the start of the newest
 * `keep_turns` assistant turns. It ends at an assistant message, so a tool result is never kept
 * without the call that asked for it. null when there is nothing worth summarizing.
 */
export function summaryRange(record: readonly Message[], summary: Summary | null, keepTurns: number): { from: number; upTo: number } | null {
  const from = summary?.upTo ?? 1;
  const turns = record.flatMap((message, index) => (message.role === "assistant" && index >= from ? [index] : []));
  if (turns.length <= keepTurns) return null;
  const upTo = turns[turns.length - keepTurns]!;
  return upTo - from >= 2 ? { from, upTo } : null;
}

/** The model writes a summary of the given conversation, sent with the same tools block. */
export type Summarizer = (messages: Message[], tools: ToolDeclaration[], signal: AbortSignal) => Promise<string>;

/** The request the loop sends next, with the sizes its events report. */
export interface NextRequest {
  messages: Message[];
  chars: number;
  estimatedTokens: number;
}

export interface ContextOptions {
  systemPrompt: string;
  /** The conversation record; the loop appends to it, the manager only reads it. */
  record: readonly Message[];
  /** null: context management off (the view is the whole record). */
  policy: ContextPolicy | null;
  /** What was compacted before (a continued session); the manager adds to it. */
  state: ContextState;
  /** The plan, frozen into a summary's message when one is written. */
  todo: readonly TodoItem[];
  maxTranscriptChars: number;
  /** The most tokens one reply may take: it must fit the window too. */
  replyTokenCap: number;
  /** The window when the server cannot tell its own (a scripted model: num_ctx). */
  fallbackWindow: number | null;
  /** The person asked for a summary (the TUI's /compact): the first request summarizes what there is, whatever the pressure. */
  summarizeFirst?: boolean;
  /** Asks the server its window, once (absent: it cannot tell). */
  contextSize?: (signal: AbortSignal) => Promise<number | null>;
  /** Asks the server how many tokens a prompt is (absent, or null: it cannot tell, and the estimate serves). */
  countTokens?: (messages: Message[], tools: ToolDeclaration[], signal: AbortSignal) => Promise<number | null>;
  summarize: Summarizer;
}

/** Roughly four characters a token, until the server's counts say otherwise. */
export const estimateTokens = (chars: number) => Math.ceil(chars / 4);

/** The one object the loop asks for the next view; it owns what was compacted, and when. */
export class ContextManager {
  /** The server's window in tokens, once it has told (null: it cannot tell). */
  private window: number | null | undefined;
  /** Tokens per character of what was sent, learned from the server's counts. */
  private tokensPerChar = 0.25;
  private sentChars = 0;
  /** Set until the first request when the person asked for a summary. */
  private summarizeNow: boolean;

  constructor(private readonly options: ContextOptions) {
    this.summarizeNow = options.summarizeFirst ?? false;
  }

  /**
   * The next request's messages: the same as the last request's plus what the record gained,
   * unless the view crossed the soft threshold, when one compaction is made and said in events.
   * A request that cannot fit is a context_limit failure.
   */
  async *next(tools: ToolDeclaration[], signal: AbortSignal): AsyncGenerator<AgentEvent, NextRequest> {
    const { policy, state } = this.options;
    if (this.window === undefined && this.options.contextSize) {
      this.window = await this.options.contextSize(signal);
      if (this.window) yield { kind: "model_info", context_size: this.window };
    }
    const toolsChars = tools.length ? JSON.stringify(tools).length : 0;
    const view = this.view();
    let counted = await this.count(view, tools, toolsChars, signal);
    let messages = view;
    const asked = this.summarizeNow;
    this.summarizeNow = false;
    if (policy && (asked || this.pressure(messages, toolsChars) >= this.threshold(policy))) messages = yield* this.compact(messages, tools, toolsChars, signal, policy, state, asked);
    if (messages !== view) counted = await this.count(messages, tools, toolsChars, signal);
    const chars = transcriptChars(messages);
    const { maxTranscriptChars, replyTokenCap } = this.options;
    if (chars > maxTranscriptChars) throw new ModelError(`the transcript holds ${chars} characters, over max_transcript_chars ${maxTranscriptChars}`, "context_limit");
    const tokens = counted ?? this.tokens(chars + toolsChars);
    // A server that gets more than its window cuts the front off silently: better not to send it.
    if (this.window && tokens + replyTokenCap > this.window) {
      const size = counted === null ? `about ${tokens} tokens, estimated` : `${tokens} tokens, counted by the server`;
      throw new ModelError(`the prompt (${size}) and the reply cap (${replyTokenCap}) do not fit the server's context window of ${this.window} tokens`, "context_limit");
    }
    this.sentChars = chars + toolsChars;
    return { messages, chars, estimatedTokens: tokens };
  }

  /** The server's count of a prompt, which also calibrates the estimate; null when it cannot tell. */
  private async count(messages: Message[], tools: ToolDeclaration[], toolsChars: number, signal: AbortSignal): Promise<number | null> {
    const counted = (await this.options.countTokens?.(messages, tools, signal)) ?? null;
    const chars = transcriptChars(messages) + toolsChars;
    if (counted && chars) this.tokensPerChar = counted / chars;
    return counted;
  }

  /** Tokens for so many characters, at the rate the server's counts showed (four characters a token until then). */
  private tokens(chars: number): number {
    return Math.ceil(chars * this.tokensPerChar);
  }

  /** A prompt of so many characters leaves room for the reply in the server's window. */
  private fits(chars: number): boolean {
    return !this.window || this.tokens(chars) + this.options.replyTokenCap <= this.window;
  }

  /** The share of the window at which the view is compacted: the soft ratio, lower when the reply cap would not fit above it. */
  private threshold(policy: ContextPolicy): number {
    const window = this.window ?? this.options.fallbackWindow;
    return window ? Math.min(policy.soft_ratio, 1 - this.options.replyTokenCap / window) : policy.soft_ratio;
  }

  /** The server's count of the last prompt's tokens, to size the window in characters. */
  learn(promptTokens: number | null): void {
    if (promptTokens && this.sentChars) this.tokensPerChar = promptTokens / this.sentChars;
  }

  private view(): Message[] {
    return renderView(this.options.systemPrompt, this.options.record, this.options.state);
  }

  /** The share of the tightest budget (the window, or max_transcript_chars) a view fills. */
  private pressure(messages: readonly Message[], toolsChars: number): number {
    const chars = transcriptChars(messages);
    const window = this.window ?? this.options.fallbackWindow;
    return Math.max(window ? ((chars + toolsChars) * this.tokensPerChar) / window : 0, chars / this.options.maxTranscriptChars);
  }

  /** The budget in characters of messages: what the window (less the tools block) or the cap holds. */
  private budgetChars(toolsChars: number): number {
    const window = this.window ?? this.options.fallbackWindow;
    const windowChars = window ? window / this.tokensPerChar - toolsChars : Infinity;
    return Math.min(windowChars, this.options.maxTranscriptChars);
  }

  /**
   * One compaction: old results elided in a batch when that takes the view under the target
   * (and no summary was asked for); otherwise the middle is summarized too (the model writes the summary from the view it last
   * saw, which the server still holds) and what is left elided again.
   */
  private async *compact(current: Message[], tools: ToolDeclaration[], toolsChars: number, signal: AbortSignal, policy: ContextPolicy, state: ContextState, summarize = false): AsyncGenerator<AgentEvent, Message[]> {
    const elide = function* (this: ContextManager, before: Message[]): Generator<AgentEvent, Message[]> {
      const ids = elisionBatch(before, state.elided, policy, this.budgetChars(toolsChars));
      if (!ids.length) return before;
      for (const id of ids) state.elided.set(id, policy.elided_chars);
      const after = this.view();
      yield { kind: "context_elided", results: ids.length, chars_before: transcriptChars(before), chars_after: transcriptChars(after), ids, cap: policy.elided_chars };
      return after;
    }.bind(this);

    const ids = elisionBatch(current, state.elided, policy, this.budgetChars(toolsChars));
    const tentative = renderView(this.options.systemPrompt, this.options.record, { ...state, elided: new Map([...state.elided, ...ids.map((id) => [id, policy.elided_chars] as const)]) });
    const range = summaryRange(this.options.record, state.summary, policy.keep_turns);
    const target = Math.min(policy.target_ratio, this.threshold(policy));
    if (!range || (!summarize && this.pressure(tentative, toolsChars) < target)) return yield* elide(current);

    // Asked on the whole view the server holds when that fits with the reply; else on the elided one.
    const request: Message = { role: "user", content: SUMMARY_REQUEST };
    const asked = this.fits(transcriptChars([...current, request]) + toolsChars) ? current : tentative;
    const text = await this.options.summarize([...asked, request], tools, signal);
    const summarized = range.upTo - range.from;
    const total = (state.summary?.messages ?? 0) + summarized;
    state.summary = { upTo: range.upTo, messages: total, note: summaryNote(total, text, this.options.todo) };
    const after = this.view();
    yield { kind: "context_summarized", messages: summarized, chars_before: transcriptChars(current), chars_after: transcriptChars(after), up_to: range.upTo, note: state.summary.note };
    return this.pressure(after, toolsChars) >= target ? yield* elide(after) : after;
  }
}
