import { renameSync, writeFileSync } from "node:fs";
import { redact } from "../trace/redact.ts";
import { ReplyBuilder } from "./reply.ts";
import { serverQuestionsOf, type ModelClient, type ModelDelta, type ModelRequest } from "../protocol/model.ts";
import type { ScriptedReply } from "./scripted.ts";

/**
 * Wraps a model and writes every reply it gives, in the scripted-model format, to `file`. The file
 * is rewritten whole after each reply (through a rename), so a killed run leaves a playable script.
 */
export class RecordingModel implements ModelClient {
  private readonly replies: ScriptedReply[] = [];
  readonly contextSize?: ModelClient["contextSize"];
  readonly countPromptTokens?: ModelClient["countPromptTokens"];
  readonly templateTools?: ModelClient["templateTools"];
  readonly cacheNote?: ModelClient["cacheNote"];

  constructor(
    private readonly inner: ModelClient,
    private readonly file: string,
  ) {
    Object.assign(this, serverQuestionsOf(inner));
    this.save();
  }

  get name(): string {
    return this.inner.name;
  }

  async *reply(request: ModelRequest): AsyncIterable<ModelDelta> {
    const builder = new ReplyBuilder();
    try {
      for await (const delta of this.inner.reply(request)) {
        builder.add(delta);
        yield delta;
      }
    } catch (error) {
      this.replies.push({ content: "", error: error instanceof Error ? error.message : String(error) });
      this.save();
      throw error;
    }
    const reply = builder.result(this.replies.length + 1);
    this.replies.push({
      content: reply.content,
      ...(reply.thinking ? { thinking: reply.thinking } : {}),
      ...(reply.tool_calls.length ? { tool_calls: reply.tool_calls } : {}),
      ...(reply.prompt_tokens !== null && reply.gen_tokens !== null
        ? { usage: { prompt_tokens: reply.prompt_tokens, gen_tokens: reply.gen_tokens } }
        : {}),
      ...(reply.finish_reason ? { finish_reason: reply.finish_reason } : {}),
      ...(request.purpose === "summary" ? { answers: "summary" as const } : {}),
    });
    this.save();
  }

  private save(): void {
    const temporary = `${this.file}.tmp-${process.pid}`;
    writeFileSync(temporary, redact(JSON.stringify({ replies: this.replies }, null, 2)) + "\n");
    renameSync(temporary, this.file);
  }
}
