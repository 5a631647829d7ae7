import type { StopStatus } from "../protocol/events.ts";
import type { AssembledReply } from "../model/reply.ts";
import type { ToolCallRequest } from "../protocol/messages.ts";
import { decodeArguments } from "../protocol/canonical.ts";

/**
 * Replies that are neither an answer nor a call: an empty one, and one the server cut off at the
 * reply cap (`finish_reason: "length"`). Each is named to the model once; a second of the same
 * kind in a row stops the run, since the model is not getting out of it by itself.
 */
export type ReplyFault = "empty_reply" | "cut_off_reply";

export interface FaultVerdict {
  rule: ReplyFault;
  /** What the model is told. */
  message: string;
  /** Set on the second in a row: the run ends. */
  stop?: { status: StopStatus; reason: string };
}

/** The server stopped the reply because it reached the reply cap. */
export const cutOffAtCap = (reply: Pick<AssembledReply, "finish_reason">) => reply.finish_reason === "length";

/** How the reply cap is named to the model and the person: the option, and its value when known. */
export const capName = (replyTokenCap: number) => (replyTokenCap > 0 ? `the reply cap (max_tokens ${replyTokenCap})` : "the reply cap (max_tokens)");

export class ReplyFaults {
  private previous: ReplyFault | null = null;

  constructor(private readonly replyTokenCap: number) {}

  /** The fault of a reply without tool calls, or null when it is an answer. A reply with calls clears the count. */
  judge(reply: AssembledReply): FaultVerdict | null {
    const fault = reply.tool_calls.length ? null : this.faultOf(reply);
    const again = fault !== null && fault === this.previous;
    this.previous = fault;
    if (!fault) return null;
    const verdict = fault === "cut_off_reply" ? this.cutOff() : EMPTY;
    return again ? { ...verdict, stop: fault === "cut_off_reply" ? this.cutOffStop() : EMPTY_STOP } : verdict;
  }

  private faultOf(reply: AssembledReply): ReplyFault | null {
    // A reply the cap cut is named as cut, even when all it held was thinking.
    if (cutOffAtCap(reply)) return "cut_off_reply";
    return reply.content.trim() ? null : "empty_reply";
  }

  private cutOff(): FaultVerdict {
    return { rule: "cut_off_reply", message: `your reply was cut off at ${capName(this.replyTokenCap)} before it ended: answer more briefly, or call a tool.` };
  }

  private cutOffStop(): { status: StopStatus; reason: string } {
    return { status: "truncated", reason: `the model's replies were cut off at ${capName(this.replyTokenCap)} twice in a row` };
  }
}

const EMPTY: FaultVerdict = { rule: "empty_reply", message: "your reply was empty: call a tool or answer." };
const EMPTY_STOP = { status: "model_error" as const, reason: "the model's replies were empty twice in a row (no text, no tool call)" };

/** Arguments a chat template can render: a JSON object, or text that parses as one. */
function replayable(args: unknown): boolean {
  const value = decodeArguments(args);
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The calls as they go back to the server in the conversation: arguments that do not parse as a
 * JSON object (a call cut off at the cap, or garbage) become `{}`, and so do arguments refused
 * for their depth or size (`screened[i]` holds why), which would otherwise be sent back at every
 * turn and walked by the server's template. A template that parses the arguments (llama-server's)
 * refuses the whole conversation otherwise, and the call was refused anyway; the event log keeps
 * what the model really sent.
 */
export function replayableCalls(calls: ToolCallRequest[], screened: Array<string | null> = []): ToolCallRequest[] {
  return calls.map((call, index) => (!screened[index] && replayable(call.arguments) ? call : { ...call, arguments: "{}" }));
}

/** The refusal of a call whose arguments the reply cap cut off, or null when the call is whole. */
export function cutOffCall(call: ToolCallRequest, reply: Pick<AssembledReply, "finish_reason">, replyTokenCap: number): string | null {
  if (!cutOffAtCap(reply) || replayable(call.arguments)) return null;
  return `the reply was cut off at ${capName(replyTokenCap)} inside the arguments of ${call.name}; call it again with shorter arguments (a large file in several smaller edits).`;
}
