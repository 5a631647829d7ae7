import type { Message } from "../protocol/messages.ts";
import type { WireLog } from "../trace/wire-log.ts";
import { keyRefusal, type ServerAccess } from "./access.ts";
import { fetchJson } from "./http.ts";
import { LlamaCppModel } from "./llamacpp.ts";
import type { ModelOptions } from "./options.ts";
import { ModelError, type ModelClient, type ModelDelta, type ModelRequest, type ToolDeclaration } from "../protocol/model.ts";

/** The server lists several models (or none) and none was named: the person must say which; nothing was sent. */
export class ModelChoiceError extends Error {}

/** One model a server lists, as `/v1/models` says it. */
interface Listed {
  id: string;
  owned_by?: string;
}

/**
 * `openai:BASE_URL`: any server with OpenAI's chat-completions API (vLLM, SGLang, LM Studio,
 * llamafile, MLX-LM, LocalAI, TGI, llama-server). Its model list, asked once, says which model
 * each request names (the one named, or the only one listed) and whether the server is llama.cpp,
 * whose extras (the prompt cache flag, /props, counting the prompt) are used only then.
 */
export class OpenAiModel implements ModelClient {
  private inner: Promise<LlamaCppModel> | null = null;

  constructor(
    readonly name: string,
    private readonly baseUrl: string,
    private readonly modelName: string | undefined,
    private readonly options: ModelOptions,
    private readonly access: ServerAccess,
    private readonly wire?: WireLog,
  ) {}

  /** Asks the server its models once; a failure is asked again next time (a server still starting). */
  prepare(signal: AbortSignal): Promise<LlamaCppModel> {
    this.inner ??= this.choose(signal);
    this.inner.catch(() => (this.inner = null));
    return this.inner;
  }

  async contextSize(signal: AbortSignal): Promise<number | null> {
    return (await this.prepare(signal)).contextSize(signal);
  }

  async countPromptTokens(messages: Message[], tools: ToolDeclaration[], signal: AbortSignal): Promise<number | null> {
    return (await this.prepare(signal)).countPromptTokens(messages, tools, signal);
  }

  async *reply(request: ModelRequest): AsyncIterable<ModelDelta> {
    yield* (await this.prepare(request.signal)).reply(request);
  }

  private async choose(signal: AbortSignal): Promise<LlamaCppModel> {
    const url = `${this.baseUrl}/v1/models`;
    const answer = await fetchJson(url, undefined, signal, undefined, this.access);
    const refused = keyRefusal(answer.status, this.access);
    if (refused) throw new ModelError(refused);
    const listed: Listed[] = Array.isArray(answer.json?.data) ? answer.json.data.filter((model: Listed) => typeof model?.id === "string") : [];
    if (answer.status !== 200 && !this.modelName) throw new ModelError(`${url} answered HTTP ${answer.status} (${answer.excerpt || "no body"}); name the model with --model-name`);
    const model = this.modelName ?? onlyModel(listed, url);
    const llamaCpp = listed.some((entry) => entry.owned_by === "llamacpp");
    return new LlamaCppModel(this.name, this.baseUrl, this.options, this.wire, { llamaCpp, model, access: this.access });
  }
}

function onlyModel(listed: Listed[], url: string): string {
  if (listed.length === 1) return listed[0]!.id;
  if (listed.length === 0) throw new ModelChoiceError(`${url} lists no model; name one with --model-name NAME (or "model_name" in glassbox.json)`);
  throw new ModelChoiceError(`${url} serves ${listed.length} models and none was named; pass --model-name with one of: ${listed.map((entry) => entry.id).join(", ")}`);
}
