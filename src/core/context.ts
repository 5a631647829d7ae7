import { clip } from "./clip.ts";
import type { ContextPolicy } from "./discipline.ts";
import { messageChars, type Message } from "./messages.ts";
import type { TodoItem } from "../tools/tool.ts";

/** The middle of the conversation, replaced in the view by a summary the model wrote. */
export interface Summary {
  /** The record index where the kept tail begins; record[1 .. upTo) is summarized. */
  upTo: number;
  /** How many messages the summary stands for. */
  messages: number;
  text: string;
}

export function transcriptChars(messages: readonly Message[]): number {
  return messages.reduce((sum, message) => sum + messageChars(message), 0);
}

/** The words that open a summary's message, before the summary's own text. */
export const SUMMARY_NOTE_MARK = "earlier messages were replaced by this summary, which you wrote:\n";

/**
 * What the model is sent: the system prompt and the record, with the summarized middle (if any)
 * replaced by one message that also carries the plan. The record itself is never edited.
 */
export function modelView(systemPrompt: string, record: readonly Message[], summary: Summary | null = null, todo: readonly TodoItem[] = []): Message[] {
  const head: Message[] = systemPrompt ? [{ role: "system", content: systemPrompt }] : [];
  if (!summary) return [...head, ...record];
  const plan = todo.length ? `\n\nYour todo list:\n${todo.map((item) => `[${item.status}] ${item.text}`).join("\n")}` : "";
  const note: Message = {
    role: "user",
    content: `[glassbox] ${summary.messages} ${SUMMARY_NOTE_MARK}${summary.text}${plan}`,
  };
  return [...head, record[0]!, note, ...record.slice(summary.upTo)];
}

/** The cap for a tool result `age` places past the newest ones: it halves each time the age doubles. */
export function capForAge(age: number, policy: ContextPolicy): number {
  return Math.max(policy.min_cap, Math.floor(policy.first_cap / 2 ** Math.floor(Math.log2(age))));
}

/**
 * Stage 1: the newest `keep_recent` tool results stay whole; older ones are cut head + tail to
 * their age's cap. The task, the model's own messages and the plan are never cut.
 */
export function elide(view: readonly Message[], policy: ContextPolicy): { messages: Message[]; results: number } {
  const toolAt = view.flatMap((message, index) => (message.role === "tool" ? [index] : []));
  const messages = [...view];
  let results = 0;
  toolAt.reverse().forEach((index, newest) => {
    if (newest < policy.keep_recent) return;
    const message = messages[index] as Extract<Message, { role: "tool" }>;
    const cap = capForAge(newest - policy.keep_recent + 1, policy);
    if (message.content.length <= cap) return;
    messages[index] = { ...message, content: clip(message.content, cap) };
    results++;
  });
  return { messages, results };
}

/**
 * Stage 2's range: from after the task (or the last summary) up to the start of the newest
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

export const SUMMARY_REQUEST =
  "[glassbox] The conversation is near the context window. Summarize the work so far for yourself in under 200 words: " +
  "what the task is, what you tried, what you found (file names, function names, errors), what you changed, and what remains. " +
  "Reply with the summary only; do not call tools.";
