/**
 * A fake vLLM server: HTTPS on 127.0.0.1 with the test CA's certificate (test/helpers/tls.ts),
 * a key required on /v1, and vLLM's wire shapes, each taken from vLLM's source
 * (github.com/vllm-project/vllm):
 *
 * - 401 for a missing or wrong key, from AuthenticationMiddleware
 *   (vllm/entrypoints/serve/utils/server_utils.py; before the routers were split out it was the
 *   `authentication` middleware of vllm/entrypoints/openai/api_server.py, with the same body):
 *       JSONResponse(content={"error": "Unauthorized"}, status_code=401)
 * - /v1/models: ModelList and ModelCard (vllm/entrypoints/openai/protocol.py):
 *       class ModelCard: id; object = "model"; created; owned_by = "vllm"; root; parent;
 *                        max_model_len; permission
 *       class ModelList: object = "list"; data: list[ModelCard]
 * - errors: ErrorResponse (same file) as vLLM sends it now, `{"error": ErrorInfo}` with
 *   ErrorInfo(message, type, param, code); older vLLM releases sent the
 *   fields flat: `class ErrorResponse: object = "error"; message; type; param = None; code`
 *   (`errorShape: "flat"`). The messages are vLLM's own (vllm/entrypoints/openai/engine/serving.py):
 *       _check_model: f"The model `{request.model}` does not exist.", "NotFoundError", 404, param "model"
 * - usage: UsageInfo with prompt_tokens_details: PromptTokenUsageInfo(cached_tokens).
 * - a stream: chat.completion.chunk events, the role first, then content, the finish reason, and
 *   with stream_options.include_usage a last chunk with no choices and the usage; then [DONE].
 */
import { testCertificates } from "./tls.ts";

export interface VllmModel {
  id: string;
  max_model_len: number;
}

/** What one chat request is answered with. */
export interface VllmReply {
  text?: string;
  toolCall?: { name: string; arguments: string };
  promptTokens?: number;
  cachedTokens?: number;
  /** Held back before the first byte of the body (the headers go at once): a request queued behind a full batch. */
  delayMs?: number;
}

export interface SeenVllmRequest {
  method: string;
  path: string;
  authorization: string | null;
  body: any;
}

export interface FakeVllm {
  /** https://127.0.0.1:PORT/v1, as a person would paste it. */
  url: string;
  requests: SeenVllmRequest[];
  chats(): SeenVllmRequest[];
  /** The most chat requests being answered at once. */
  maxInFlight(): number;
  stop(): void;
}

export interface FakeVllmOptions {
  key: string;
  models: VllmModel[];
  reply?: (n: number, body: any) => VllmReply;
  errorShape?: "nested" | "flat";
  /** Answer every chat request with this status and an error body quoting the request's Authorization header (a careless proxy). */
  echoAuthorization?: number;
}

export function fakeVllm(options: FakeVllmOptions): FakeVllm {
  const { cert, key } = testCertificates();
  const requests: SeenVllmRequest[] = [];
  let chats = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert, key },
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const authorization = request.headers.get("authorization");
      const text = await request.text();
      const seen = { method: request.method, path, authorization, body: text ? JSON.parse(text) : null };
      requests.push(seen);
      if (path.startsWith("/v1") && authorization !== `Bearer ${options.key}`) return Response.json({ error: "Unauthorized" }, { status: 401 });
      if (path === "/v1/models") return Response.json(modelList(options.models));
      if (path !== "/v1/chat/completions") return Response.json(errorBody(options.errorShape, "Not Found", "NotFoundError", 404), { status: 404 });
      if (options.echoAuthorization) return Response.json(errorBody(options.errorShape, `rejected request with Authorization: ${authorization}`, "BadRequestError", options.echoAuthorization), { status: options.echoAuthorization });
      if (!options.models.some((model) => model.id === seen.body?.model)) {
        return Response.json(errorBody(options.errorShape, `The model \`${seen.body?.model}\` does not exist.`, "NotFoundError", 404, "model"), { status: 404 });
      }
      const reply = options.reply?.(chats++, seen.body) ?? { text: "Done." };
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      return new Response(stream(seen.body, reply, () => inFlight--), { headers: { "Content-Type": "text/event-stream; charset=utf-8" } });
    },
  });
  return {
    url: `https://127.0.0.1:${server.port}/v1`,
    requests,
    chats: () => requests.filter((seen) => seen.path === "/v1/chat/completions"),
    maxInFlight: () => maxInFlight,
    stop: () => server.stop(true),
  };
}

function modelList(models: VllmModel[]) {
  const created = Math.floor(Date.now() / 1000);
  return {
    object: "list",
    data: models.map((model) => ({
      id: model.id,
      object: "model",
      created,
      owned_by: "vllm",
      root: `/models/${model.id}`,
      parent: null,
      max_model_len: model.max_model_len,
      permission: [{ id: `modelperm-${model.id}`, object: "model_permission", created, allow_create_engine: false, allow_sampling: true, allow_logprobs: true, allow_search_indices: false, allow_view: true, allow_fine_tuning: false, organization: "*", group: null, is_blocking: false }],
    })),
  };
}

function errorBody(shape: FakeVllmOptions["errorShape"], message: string, type: string, code: number, param: string | null = null) {
  return shape === "flat" ? { object: "error", message, type, param, code } : { error: { message, type, param, code } };
}

function stream(body: any, reply: VllmReply, ended: () => void): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const id = `chatcmpl-${crypto.randomUUID().replaceAll("-", "")}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model, choices, ...extra })}\n\n`;
  const choice = (delta: unknown, finish: string | null = null) => ({ index: 0, delta, logprobs: null, finish_reason: finish });
  const words = reply.text?.match(/\S+\s*/g) ?? [];
  const call = reply.toolCall;
  const events = [
    chunk([choice({ role: "assistant", content: "" })]),
    ...words.map((word) => chunk([choice({ content: word })])),
    ...(call ? [chunk([choice({ tool_calls: [{ id: "chatcmpl-tool-1", type: "function", index: 0, function: { name: call.name, arguments: call.arguments } }] })])] : []),
    chunk([choice({}, call ? "tool_calls" : "stop")]),
    ...(body.stream_options?.include_usage ? [chunk([], { usage: usage(reply, words.length + 1) })] : []),
    "data: [DONE]\n\n",
  ];
  return new ReadableStream({
    async pull(controller) {
      if (reply.delayMs) await Bun.sleep(reply.delayMs);
      for (const event of events) controller.enqueue(encoder.encode(event));
      controller.close();
      ended();
    },
  });
}

function usage(reply: VllmReply, completionTokens: number) {
  const prompt = reply.promptTokens ?? 500;
  return { prompt_tokens: prompt, total_tokens: prompt + completionTokens, completion_tokens: completionTokens, prompt_tokens_details: reply.cachedTokens === undefined ? null : { cached_tokens: reply.cachedTokens } };
}
