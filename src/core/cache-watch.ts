import type { EventOf } from "../protocol/events.ts";
import type { ToolDeclaration } from "../protocol/model.ts";
import { argumentsText, messageChars, type Message } from "../protocol/messages.ts";

/** A miss: the server reused under this share of what the conversation allowed... */
const MISS_SHARE = 0.5;
/** ...and at least this many tokens fewer: small prompts and the template's re-rendered turn ends are no miss. */
const MISS_FLOOR = 256;

/** One request as the watch remembers it: its messages (as sent) and its size in the server's tokens. */
interface Sent {
  messages: readonly Message[];
  /** The tool declarations' JSON: rendered before the messages, in the system prompt (native templates and the prompted protocol alike). */
  tools: string;
  promptTokens: number;
}

/**
 * Watches the server's prompt cache from the run's side: after each reply, how much of the prompt
 * the server says it reused (`timings.cache_n`) against what the conversation allowed: the whole
 * previous prompt when the view only grew at its end, else the part before the first message
 * that changed (a compaction), estimated from the previous prompt's tokens by its characters. A
 * compaction whose prefix the server kept is no miss; a miss is said with its likely cause.
 */
export class CacheWatch {
  private previous: Sent | null = null;
  /** Whether any request so far was served partly from the cache: a server that never reuses has its cache off. */
  private everReused = false;

  /** `known`: what the model's side knows of its server's cache (a sliding-window model started without --swa-full), or null. */
  constructor(private readonly known: () => string | null = () => null) {}

  observe(step: number, messages: readonly Message[], tools: readonly ToolDeclaration[], promptTokens: number | null, reused: number | null): EventOf<"cache_miss"> | null {
    if (promptTokens === null || reused === null) return null;
    const previous = this.previous;
    const sent = { messages, tools: tools.length ? JSON.stringify(tools) : "", promptTokens };
    this.previous = sent;
    const reusedBefore = this.everReused;
    if (reused > 0) this.everReused = true;
    if (!previous) return null;
    // New tools change the prompt at its start, before the first message.
    const changedAt = previous.tools === sent.tools ? firstChange(previous.messages, messages) : 0;
    const kept = changedAt === null ? 0 : (previous.tools === sent.tools ? previous.tools.length : 0) + charsOf(previous.messages.slice(0, changedAt));
    const expected = changedAt === null ? previous.promptTokens : Math.floor((previous.promptTokens * kept) / Math.max(1, previous.tools.length + charsOf(previous.messages)));
    if (expected - reused < MISS_FLOOR || reused >= expected * MISS_SHARE) return null;
    return { kind: "cache_miss", step, reused, expected, cause: this.cause(changedAt, reusedBefore) };
  }

  private cause(changedAt: number | null, reusedBefore: boolean): string {
    if (!reusedBefore && !this.everReused) return "the server's prompt cache is off: no request of this run reused any of the last (llama-server: cache_prompt, --cache-ram, --no-cache-prompt)";
    const known = this.known();
    if (changedAt === null) return `another client on the slot: the prompt only grew, yet the server had dropped what it held${known ? `; or ${known}` : ""}`;
    const where = `the prompt changed at message ${changedAt + 1} (compaction), and the server kept less than the part before it`;
    return `${where}: ${known ?? "a sliding-window or hybrid model, whose cache cannot keep a changed history (llama-server --swa-full keeps it for sliding-window layers), or another client on the slot"}`;
  }
}

/** The index of the first message of `before` that `after` does not repeat; null when `after` only adds to its end. */
function firstChange(before: readonly Message[], after: readonly Message[]): number | null {
  for (let index = 0; index < before.length; index++) {
    if (index >= after.length || !sameMessage(before[index]!, after[index]!)) return index;
  }
  return null;
}

function sameMessage(a: Message, b: Message): boolean {
  if (a === b) return true;
  if (a.role !== b.role || a.content !== b.content) return false;
  const calls = (message: Message) => (message.role === "assistant" ? (message.tool_calls ?? []).map((call) => call.name + argumentsText(call.arguments)).join("\n") : "");
  return calls(a) === calls(b);
}

function charsOf(messages: readonly Message[]): number {
  let chars = 0;
  for (const message of messages) chars += messageChars(message);
  return chars;
}
