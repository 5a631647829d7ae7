import { z } from "zod";
import { builtOnFirstParse } from "../protocol/zod-start.ts";
import { ModelError, type ModelClient, type ModelDelta, type ModelRequest } from "../protocol/model.ts";

/** One reply of a scripted model: the format `--model scripted:FILE` plays and `--record` writes. */
const scriptedReply = () =>
  z
    .object({
      content: z.string().default(""),
      thinking: z.string().optional(),
      tool_calls: z
        .array(
          z
            .object({
              id: z.string().optional(),
              name: z.string(),
              /** Any JSON value: the harness, not the script, decides what is valid. */
              arguments: z.unknown().optional(),
            })
            .strict(),
        )
        .optional(),
      usage: z.object({ prompt_tokens: z.number().int().min(0), gen_tokens: z.number().int().min(0) }).strict().optional(),
      finish_reason: z.string().optional(),
      /** This turn fails as a model error with this text. */
      error: z.string().optional(),
      /** "summary": played only when the context manager asks for a summary, whenever that comes. */
      answers: z.literal("summary").optional(),
    })
    .strict();

export const ScriptSchema = builtOnFirstParse(() => z.object({ replies: z.array(scriptedReply()) }).strict());

export type ScriptedReply = z.input<ReturnType<typeof scriptedReply>>;
export type Script = z.infer<typeof ScriptSchema>;

/**
 * Plays a script's replies in order. Replies marked `"answers": "summary"` are kept for summary
 * requests, so a script does not depend on the step at which a summary comes; a script with none
 * marked plays every request in order. Running out is a model error, so no test passes by accident.
 */
export class ScriptedModel implements ModelClient {
  private played = new Set<number>();

  constructor(
    readonly name: string,
    private readonly script: Script,
    /** Milliseconds between streamed words, to play a script at a model's pace (the demo); 0 = at once. */
    private readonly paceMs = 0,
  ) {}

  async *reply(request: ModelRequest): AsyncIterable<ModelDelta> {
    const { replies } = this.script;
    const marked = replies.some((reply) => reply.answers === "summary");
    const wanted = marked && request.purpose === "summary" ? "summary" : undefined;
    const index = replies.findIndex((reply, at) => !this.played.has(at) && (!marked || reply.answers === wanted));
    if (index === -1) throw new ModelError(`the scripted model has no ${wanted ? "summary " : ""}replies left (it had ${replies.length})`);
    this.played.add(index);
    const reply = replies[index]!;
    if (request.signal.aborted) throw new ModelError("the request was cancelled");
    if (reply.error !== undefined) throw new ModelError(reply.error);
    if (reply.thinking) yield { type: "thinking", text: reply.thinking };
    if (reply.content && this.paceMs > 0) {
      for (const word of reply.content.match(/\S+\s*|\s+/g) ?? []) {
        await abortableSleep(this.paceMs, request.signal);
        yield { type: "text", text: word };
      }
    } else if (reply.content) yield { type: "text", text: reply.content };
    for (const [index, call] of (reply.tool_calls ?? []).entries()) {
      yield { type: "tool_call", index, id: call.id, name: call.name, arguments: call.arguments ?? {} };
    }
    if (reply.usage) yield { type: "usage", ...reply.usage };
    yield { type: "done", finish_reason: reply.finish_reason ?? (reply.tool_calls?.length ? "tool_calls" : "stop") };
  }
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ModelError("the request was cancelled"));
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ModelError("the request was cancelled"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
