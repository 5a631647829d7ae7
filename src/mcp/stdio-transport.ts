import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { StdioServer } from "./config.ts";

/** What every stdio server sees of glassbox's environment; anything else only when the config names it. */
export const SERVER_BASE_ENV = ["PATH", "HOME", "LANG", "TERM"] as const;

export function serverEnvironment(server: StdioServer, from: Record<string, string | undefined> = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...SERVER_BASE_ENV, ...server.env_pass]) {
    const value = from[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...server.env };
}

const CLOSE_WAIT_MS = 3000;

/** Process groups of every server still running, killed on the way out even when nobody closed them. */
const running = new Set<number>();
process.on("exit", () => {
  for (const pid of running) killGroup(pid);
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/**
 * The SDK's stdio transport hands a server part of glassbox's environment and kills only the
 * server itself; this one gives it exactly `serverEnvironment` and runs it in its own process
 * group, so closing it (or glassbox exiting) kills everything it started.
 */
export class StdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The server's stderr, kept short for the message that says why it failed. */
  stderrTail = "";
  private child: Bun.Subprocess<"pipe", "pipe", "pipe"> | null = null;
  private readonly buffer = new ReadBuffer();
  private closed = false;

  constructor(
    private readonly server: StdioServer,
    private readonly cwd: string,
  ) {}

  async start(): Promise<void> {
    const child = Bun.spawn(this.server.command, {
      cwd: this.cwd,
      env: serverEnvironment(this.server),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
    this.child = child;
    running.add(child.pid);
    void this.read(child.stdout);
    void this.readStderr(child.stderr);
    void child.exited.then(() => this.finish());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.child || this.closed) throw new Error("the server is not running");
    this.child.stdin.write(serializeMessage(message));
    await this.child.stdin.flush();
  }

  async close(): Promise<void> {
    if (this.child) killGroup(this.child.pid);
    // SIGKILL cannot be refused; the cap only keeps a wedged reaper from holding up the session's end.
    await Promise.race([this.child?.exited, Bun.sleep(CLOSE_WAIT_MS)]);
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.child) {
      // The server is gone; anything it left in its group goes with it.
      killGroup(this.child.pid);
      running.delete(this.child.pid);
    }
    this.onclose?.();
  }

  private async read(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of stream) {
        this.buffer.append(Buffer.from(chunk));
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          if (!message) break;
          this.onmessage?.(message);
        }
      }
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  private async readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) this.stderrTail = (this.stderrTail + decoder.decode(chunk, { stream: true })).slice(-2000);
  }
}
