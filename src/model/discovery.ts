import { modelContextLength } from "./ollama.ts";

/** One model glassbox could use right now, found by asking the servers (or a GGUF file, which glassbox serves itself). */
export interface Candidate {
  server: "llamacpp" | "ollama" | "gguf" | "openai";
  /** openai: which kind of server answered at that address ("LM Studio", "vLLM", "SGLang"). */
  kind?: string;
  /** openai: the model's name on its server, sent with each request (--model-name). */
  modelName?: string;
  /** The `--model` spec that selects it. */
  spec: string;
  /** The model's own name: llama.cpp's loaded model, the Ollama tag, or the file's name. */
  name: string;
  /** Where it is served; a GGUF file's own path. */
  baseUrl: string;
  /** Bytes on disk, when the server says. */
  size: number | null;
  /** Context length in tokens: llama.cpp's window per slot, Ollama's trained length. */
  contextLength: number | null;
  /** false when the server says the model cannot call tools; null when it does not say. */
  tools: boolean | null;
}

/** What one server address did when asked. */
export interface ServerAnswer {
  server: Exclude<Candidate["server"], "gguf">;
  /** openai: which kind of server is usually at that address. */
  kind?: string;
  url: string;
  answered: boolean;
  /** Why it gave no model: "connection refused", "HTTP 404", "no models installed"… */
  problem: string | null;
}

/** A model file found on disk that cannot be used, and why ("is truncated: …"). */
export interface UnusableFile {
  path: string;
  problem: string;
}

export interface Discovery {
  candidates: Candidate[];
  servers: ServerAnswer[];
  /** GGUF files that were found but fail the header check (only when files were looked for). */
  unusable?: UnusableFile[];
}

export interface DiscoveryOptions {
  llamacppUrl: string;
  ollamaUrl: string;
  /** OpenAI-compatible servers at their usual addresses (LM Studio, vLLM, SGLang), each with its kind. */
  openaiUrls?: Array<{ kind: string; url: string }>;
  /** Headers every question carries (a key from the environment). */
  headers?: Record<string, string>;
  /** Each server gets this long, all of its requests together; both are asked at the same time. */
  timeoutMs?: number;
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** Resolves when the time is up (injected so the timeout is tested without waiting). */
  wait?: (ms: number) => Promise<void>;
}

/** The variable a key is read from, named when a server asks for one. */
const KEY_VARIABLE = "GLASSBOX_API_KEY";

/** Local servers answer their info endpoints in milliseconds; one that takes longer is not ready. */
export const DISCOVERY_TIMEOUT_MS = 2000;

const LABEL = { llamacpp: "llama.cpp", ollama: "Ollama", gguf: "GGUF file", openai: "OpenAI-compatible" } as const;

export function serverLabel(server: Candidate["server"], kind?: string): string {
  return kind ?? LABEL[server];
}

/**
 * Asks llama.cpp and Ollama at the same time which models they have: llama.cpp its loaded model
 * (`/v1/models`, `/props`), Ollama every installed model (`/api/tags`) with its context length
 * (`/api/show`). Nothing here throws: a server that is down, slow or not what we expected is an
 * answer with its problem named.
 */
export async function discoverModels(options: DiscoveryOptions): Promise<Discovery> {
  const ask = asker(options);
  const [llama, ollama, ...openai] = await Promise.all([
    withinTime(options, "llamacpp", options.llamacppUrl, (signal) => askLlamaCpp(options.llamacppUrl, ask, signal)),
    withinTime(options, "ollama", options.ollamaUrl, (signal) => askOllama(options.ollamaUrl, ask, signal)),
    ...(options.openaiUrls ?? []).map(async ({ kind, url }) => {
      const found = await withinTime(options, "openai", url, (signal) => askOpenAi(url, kind, ask, signal));
      return { ...found, answer: { ...found.answer, kind } };
    }),
  ]);
  // Ollama also speaks the OpenAI API: where one address is both, it is Ollama, listed once.
  const llamaIsOllama = ollama!.answer.answered && llama!.answer.url === ollama!.answer.url;
  return {
    candidates: [...(llamaIsOllama ? [] : llama!.candidates), ...ollama!.candidates, ...openai.flatMap((found) => found.candidates)],
    servers: [...(llamaIsOllama ? [ollama!.answer] : [llama!.answer, ollama!.answer]), ...openai.map((found) => found.answer)],
  };
}

type Ask = (url: string, signal: AbortSignal, body?: unknown) => Promise<any>;

/** A JSON GET (or POST with a body); any failure is thrown as a short reason. */
function asker(options: DiscoveryOptions): Ask {
  const doFetch = options.fetch ?? ((url, init) => fetch(url, init));
  return async (url, signal, body) => {
    let response: Response;
    try {
      const headers = options.headers ?? {};
      response = await doFetch(url, body === undefined ? { signal, headers } : { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json", ...headers }, signal });
    } catch (error) {
      if (signal.aborted) throw error;
      const code = (error as { code?: string }).code;
      throw new Error(code === "ECONNREFUSED" || code === "ConnectionRefused" ? "connection refused" : `not reachable (${(error as Error).message})`);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      if (response.status === 401 || response.status === 403) throw new Error(`needs a key (HTTP ${response.status}): set ${KEY_VARIABLE}`);
      throw new Error(`HTTP ${response.status} from ${new URL(url).pathname}`);
    }
    try {
      return await response.json();
    } catch {
      throw new Error(`${new URL(url).pathname} did not answer JSON`);
    }
  };
}

interface Found {
  candidates: Candidate[];
  answer: ServerAnswer;
}

/** Runs one server's questions under the time limit, and turns a failure into its answer. */
async function withinTime(options: DiscoveryOptions, server: ServerAnswer["server"], url: string, questions: (signal: AbortSignal) => Promise<Candidate[]>): Promise<Found> {
  const ms = options.timeoutMs ?? DISCOVERY_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = options.wait ?? ((delay: number) => new Promise<void>((resolve) => setTimeout(resolve, delay).unref()));
  let done = false;
  void timer(ms).then(() => {
    if (!done) controller.abort();
  });
  try {
    const candidates = await Promise.race([
      questions(controller.signal),
      new Promise<never>((_, reject) => controller.signal.addEventListener("abort", () => reject(new Error(`no answer within ${ms} ms`)), { once: true })),
    ]);
    return { candidates, answer: { server, url, answered: true, problem: candidates.length ? null : server === "ollama" ? "no chat model installed" : "no model loaded" } };
  } catch (error) {
    return { candidates: [], answer: { server, url, answered: false, problem: (error as Error).message } };
  } finally {
    done = true;
  }
}

async function askLlamaCpp(baseUrl: string, ask: Ask, signal: AbortSignal): Promise<Candidate[]> {
  // Either endpoint is enough; older servers lack /v1/models' meta, some builds lack /props.
  const [models, props] = await Promise.allSettled([ask(`${baseUrl}/v1/models`, signal), ask(`${baseUrl}/props`, signal)]);
  if (models.status === "rejected" && props.status === "rejected") throw models.reason;
  const listed = models.status === "fulfilled" ? models.value?.data?.[0] : undefined;
  const info = props.status === "fulfilled" ? props.value : undefined;
  const name = stringOr(listed?.id) ?? stringOr(info?.model_alias) ?? stringOr(info?.model_path)?.split("/").at(-1) ?? null;
  if (!name) return [];
  return [
    {
      server: "llamacpp",
      spec: `llamacpp:${baseUrl}`,
      name,
      baseUrl,
      size: numberOr(listed?.meta?.size),
      contextLength: numberOr(info?.default_generation_settings?.n_ctx) ?? numberOr(listed?.meta?.n_ctx),
      tools: info?.chat_template_caps === undefined ? null : Boolean(info.chat_template_caps.supports_tool_calls),
    },
  ];
}

/** An OpenAI-compatible server: every model it lists is a candidate, named on each request. */
async function askOpenAi(baseUrl: string, kind: string, ask: Ask, signal: AbortSignal): Promise<Candidate[]> {
  const models = await ask(`${baseUrl}/v1/models`, signal);
  if (!Array.isArray(models?.data)) throw new Error("/v1/models did not list models: not an OpenAI-compatible server?");
  return models.data
    .filter((model: any) => typeof model?.id === "string" && model.id)
    .map((model: any): Candidate => ({ server: "openai", kind, modelName: model.id, spec: `openai:${baseUrl}`, name: model.id, baseUrl, size: null, contextLength: numberOr(model.max_model_len), tools: null }));
}

async function askOllama(baseUrl: string, ask: Ask, signal: AbortSignal): Promise<Candidate[]> {
  const tags = await ask(`${baseUrl}/api/tags`, signal);
  if (!Array.isArray(tags?.models)) throw new Error("/api/tags did not list models: not an Ollama server?");
  const installed = tags.models.filter((model: any) => typeof model?.name === "string" && model.name);
  const found = await Promise.all(
    installed.map(async (model: any): Promise<Candidate | null> => {
      // Without /api/show the model is still listed, its context length unknown.
      const show = await ask(`${baseUrl}/api/show`, signal, { model: model.name }).catch(() => null);
      const capabilities: unknown = show?.capabilities;
      const can = (what: string) => (Array.isArray(capabilities) ? capabilities.includes(what) : null);
      // An embedding model cannot hold a conversation: it is not a candidate.
      if (can("completion") === false) return null;
      return { server: "ollama", spec: `ollama:${model.name}`, name: model.name, baseUrl, size: numberOr(model.size), contextLength: modelContextLength(show), tools: can("tools") };
    }),
  );
  return found.filter((candidate): candidate is Candidate => candidate !== null);
}

function stringOr(value: unknown): string | null {
  return typeof value === "string" && value ? value : null;
}

function numberOr(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : null;
}
