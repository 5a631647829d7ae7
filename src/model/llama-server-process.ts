import { appendFileSync, existsSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { makeGlassboxFolder } from "../platform/glassbox-folder.ts";
import type { ServerPlan } from "./server-plan.ts";

/**
 * One llama-server that glassbox started for a GGUF file: its start (a free port on 127.0.0.1,
 * waiting out `503 Loading model`), its watch (its exit, its log) and its stop. Its lifetime is
 * glassbox's: stop() on every way out glassbox sees, and a watchdog for the one it cannot (a
 * SIGKILL), which ends the server within a few seconds of glassbox's end.
 */

export interface ServerLaunch {
  /** The argv prefix that runs llama-server (the binary; a test may put a loader first). */
  binary: string[];
  /** Environment added for it. */
  env?: Record<string, string>;
  /** The GGUF file, absolute. */
  model: string;
  /** The window in tokens (-c): for all slots together. */
  window: number;
  slots: number;
  /** Flags for the model's architecture (--swa-full), after ours and before the person's. */
  archArgs?: string[];
  /** Why the window and those flags: printed by doctor and in server_start. */
  plan?: ServerPlan;
  /** The person's own arguments (config llama_server.args), after ours. */
  extraArgs: string[];
  /** `.glassbox/llama-server.log` of the workspace. */
  logPath: string;
}

export interface ServerExit {
  code: number | null;
  signal: string | null;
}

/** Progress while the model loads: what the server's log said last. */
export type LoadProgress = (line: string) => void;

/** How long a model may take to load: a large one from a slow disk takes minutes. */
export const LOAD_TIMEOUT_MS = 600_000;
/** The log is rotated past this size (one older file kept), so a long session cannot fill the disk. */
const LOG_CAP_BYTES = 4 * 1024 * 1024;
/** Lines kept in memory for the reason a server died and for the loading screen. */
const TAIL_LINES = 20;
/** A server asked to stop gets this long before it is killed. */
const STOP_GRACE_MS = 3000;

/** llama-server's command line: the model, the template's tools, the slots, loopback only, then the person's. */
export function serverCommand(launch: ServerLaunch, port: number): string[] {
  return [...launch.binary, "-m", launch.model, "--jinja", "-np", String(launch.slots), "--host", "127.0.0.1", "--port", String(port), "-c", String(launch.window), ...(launch.archArgs ?? []), ...launch.extraArgs];
}

export class LlamaServerProcess {
  /** Set once it has ended (or was stopped). */
  exit: ServerExit | null = null;
  readonly exited: Promise<ServerExit>;
  readonly url: string;
  private readonly tail: string[] = [];
  private stopping = false;

  private constructor(
    readonly command: string[],
    readonly port: number,
    private readonly child: ReturnType<typeof Bun.spawn>,
    private readonly log: ServerLog,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.exited = child.exited.then(() => {
      const exit: ServerExit = { code: child.signalCode ? null : child.exitCode, signal: child.signalCode ? String(child.signalCode) : null };
      this.exit = exit;
      return exit;
    });
    void this.pump(child.stdout as ReadableStream<Uint8Array>);
    void this.pump(child.stderr as ReadableStream<Uint8Array>);
  }

  get pid(): number {
    return this.child.pid;
  }

  /** Starts it and resolves once it has loaded the model; rejects with the log's last line when it cannot. */
  static async start(launch: ServerLaunch, onProgress: LoadProgress = () => {}, signal?: AbortSignal): Promise<{ server: LlamaServerProcess; loadMs: number }> {
    const started = performance.now();
    const port = freePort();
    const command = serverCommand(launch, port);
    const log = new ServerLog(launch.logPath);
    log.begin(command);
    let child: ReturnType<typeof Bun.spawn>;
    try {
      child = Bun.spawn(command, { env: { ...process.env, ...launch.env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    } catch (error) {
      throw new ServerStartError(`could not run ${launch.binary.at(-1)}: ${(error as Error).message}`);
    }
    const server = new LlamaServerProcess(command, port, child, log);
    watchdog(process.pid, child.pid);
    try {
      await server.ready(onProgress, signal);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return { server, loadMs: Math.round(performance.now() - started) };
  }

  /** The last lines of its output, for a reason that says why it died. */
  lastLines(count = 1): string[] {
    return this.tail.slice(-count);
  }

  /** How it ended, in words: "exit code 1", "signal SIGKILL". */
  describeExit(): string {
    if (!this.exit) return "still running";
    return this.exit.signal ? `was killed by ${this.exit.signal}` : `exited with code ${this.exit.code}`;
  }

  /** Asks it to end, then kills it; resolves once it is gone. */
  async stop(): Promise<void> {
    if (this.exit) return;
    this.stopping = true;
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  /** Ends it at once, without waiting: for the last moments of a process that is exiting. */
  killNow(): void {
    if (!this.exit) this.child.kill("SIGKILL");
  }

  get stoppedByUs(): boolean {
    return this.stopping;
  }

  private async ready(onProgress: LoadProgress, signal?: AbortSignal): Promise<void> {
    const deadline = performance.now() + LOAD_TIMEOUT_MS;
    let said = "";
    while (!this.exit) {
      if (signal?.aborted) throw new ServerStartError("stopped while the model was loading");
      if (performance.now() > deadline) throw new ServerStartError(`the model did not load within ${LOAD_TIMEOUT_MS / 1000} s; its log: ${this.log.path}`);
      if (await this.healthy()) return;
      const line = this.tail.at(-1) ?? "";
      if (line !== said) onProgress((said = line));
      await Promise.race([Bun.sleep(100), this.exited]);
    }
    throw new ServerStartError(`llama-server ${this.describeExit()} before it was ready: ${this.lastLines(1)[0] ?? "it wrote nothing"} (log: ${this.log.path})`);
  }

  /** `/health` says ok; a 503 is a model still loading, a refused connection a server not listening yet. */
  private async healthy(): Promise<boolean> {
    try {
      const response = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(2000) });
      await response.body?.cancel();
      return response.ok;
    } catch {
      return false;
    }
  }

  /** The server's output into its log and the in-memory tail. */
  private async pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let partial = "";
    for await (const chunk of stream) {
      const text = partial + decoder.decode(chunk, { stream: true });
      const lines = text.split("\n");
      partial = lines.pop() ?? "";
      this.log.write(text.slice(0, text.length - partial.length));
      for (const line of lines) if (line.trim()) this.tail.push(line.trimEnd());
      if (this.tail.length > TAIL_LINES) this.tail.splice(0, this.tail.length - TAIL_LINES);
    }
    if (partial.trim()) this.tail.push(partial.trimEnd());
  }
}

/** A server that could not be started or did not load: one line for the person. */
export class ServerStartError extends Error {}

/** The server's log file: begun afresh at each start, rotated past its cap (one older file kept), never a reason to fail. */
export class ServerLog {
  constructor(
    readonly path: string,
    private readonly capBytes = LOG_CAP_BYTES,
  ) {}

  begin(command: string[]): void {
    this.guard(() => {
      makeGlassboxFolder(dirname(this.path));
      writeFileSync(this.path, `$ ${command.join(" ")}\n`);
    });
  }

  write(text: string): void {
    if (!text) return;
    this.guard(() => {
      if (existsSync(this.path) && statSync(this.path).size > this.capBytes) renameSync(this.path, `${this.path}.1`);
      appendFileSync(this.path, text);
    });
  }

  private guard(write: () => void): void {
    try {
      write();
    } catch {
      // A full disk or a removed folder loses log lines, never the server or the run.
    }
  }
}

/** A port of 127.0.0.1 that is free now. */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/**
 * A small shell that outlives glassbox by at most a second: once glassbox's pid is gone it ends
 * the server (TERM, then KILL). It is how a SIGKILL of glassbox, which no handler sees, still
 * leaves no server holding gigabytes of memory. POSIX only; on Windows the server is stopped
 * by glassbox's own exit paths.
 */
function watchdog(parent: number, server: number): void {
  if (process.platform === "win32") return;
  const script = 'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; kill -TERM "$2" 2>/dev/null; sleep 2; kill -KILL "$2" 2>/dev/null';
  const child = Bun.spawn(["sh", "-c", script, "glassbox-watchdog", String(parent), String(server)], { stdin: "ignore", stdout: "ignore", stderr: "ignore", detached: true });
  child.unref();
}
