import type { WireLog } from "../trace/wire-log.ts";
import { LlamaCppModel } from "./llamacpp.ts";
import { LlamaServerProcess, type LoadProgress, type ServerLaunch } from "./llama-server-process.ts";
import type { ModelOptions } from "./options.ts";
import type { Message } from "../protocol/messages.ts";
import { ModelError, type ModelClient, type ModelDelta, type ModelRequest, type ToolDeclaration } from "../protocol/model.ts";

/** What a started server tells the person: the `server_start` event's fields. */
export interface ServerStarted {
  command: string[];
  pid: number;
  port: number;
  load_ms: number;
  log: string;
  /** The window per slot, and why (the trained length, the memory, the config). */
  window: number;
  window_reason: string;
  /** What was chosen for the prompt cache of this architecture, and its memory (absent: nothing to choose). */
  cache_plan?: string;
}

/** How long after a failed request the server's exit is waited for: the connection drops a moment before the exit is reported. */
const EXIT_NOTICE_MS = 1000;

/**
 * `gguf:PATH`: a llama-server glassbox starts for the file and talks to as llama.cpp. The
 * server starts with start() (the session calls it before the first run, to show it) or, at the
 * latest, with the first request; a request that fails because the server died says how it
 * ended and what its log said last.
 */
export class GgufModel implements ModelClient {
  private server: LlamaServerProcess | null = null;
  private inner: LlamaCppModel | null = null;
  private starting: Promise<ServerStarted> | null = null;

  constructor(
    readonly name: string,
    readonly launch: ServerLaunch,
    private readonly options: ModelOptions,
    private readonly wire?: WireLog,
  ) {}

  /** Starts the server once; later calls wait for the same start. A server that died is started again. */
  start(onProgress?: LoadProgress, signal?: AbortSignal): Promise<ServerStarted> {
    if (this.server?.exit) this.starting = null;
    this.starting ??= this.launchServer(onProgress, signal);
    this.starting.catch(() => (this.starting = null));
    return this.starting;
  }

  get running(): LlamaServerProcess | null {
    return this.server && !this.server.exit ? this.server : null;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
  }

  async contextSize(signal: AbortSignal): Promise<number | null> {
    return (await this.ready(signal)).contextSize(signal);
  }

  async countPromptTokens(messages: Message[], tools: ToolDeclaration[], signal: AbortSignal): Promise<number | null> {
    return (await this.ready(signal)).countPromptTokens(messages, tools, signal);
  }

  /** What the server, as started, cannot keep of its cache (a sliding-window model without --swa-full). */
  cacheNote(): string | null {
    return this.launch.plan?.cacheNote ?? null;
  }

  async templateTools(signal: AbortSignal): Promise<boolean | null> {
    return (await this.ready(signal)).templateTools(signal);
  }

  async *reply(request: ModelRequest): AsyncIterable<ModelDelta> {
    const inner = await this.ready(request.signal);
    try {
      yield* inner.reply(request);
    } catch (error) {
      throw request.signal.aborted ? error : await this.explain(error);
    }
  }

  /** The adapter to its server, started if it never was; a server that died is not started again behind the run's back (its requests fail, and say why). */
  private async ready(signal: AbortSignal): Promise<LlamaCppModel> {
    if (!this.inner) await this.start(undefined, signal);
    return this.inner!;
  }

  private async launchServer(onProgress?: LoadProgress, signal?: AbortSignal): Promise<ServerStarted> {
    const { server, loadMs } = await LlamaServerProcess.start(this.launch, onProgress, signal);
    this.server = server;
    // Not reconnected: a server glassbox started does not come back by itself, and its death is named at once.
    this.inner = new LlamaCppModel(this.name, server.url, { ...this.options, reconnect_seconds: 0 }, this.wire);
    const plan = this.launch.plan;
    const window = plan?.window ?? Math.floor(this.launch.window / this.launch.slots);
    return {
      command: server.command,
      pid: server.pid,
      port: server.port,
      load_ms: loadMs,
      log: this.launch.logPath,
      window,
      window_reason: plan?.windowReason ?? "the launch's window",
      ...(plan?.cachePlan ? { cache_plan: plan.cachePlan } : {}),
    };
  }

  /** A failed request: when the server has died, the reason is its death, with its log's last line. */
  private async explain(error: unknown): Promise<unknown> {
    const server = this.server;
    if (!server) return error;
    const exit = server.exit ?? (await Promise.race([server.exited, Bun.sleep(EXIT_NOTICE_MS).then(() => null)]));
    if (!exit) return error;
    return death(server);
  }
}

/** How the server ended, and the last line of its log: what a person needs to see why. */
function death(server: LlamaServerProcess): ModelError {
  const last = server.lastLines(1)[0];
  return new ModelError(`llama-server ${server.describeExit()} during the run; the last line of its log: ${last ? JSON.stringify(last) : "(empty)"}`);
}
