import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema, ErrorCode, McpError, ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { resolve } from "node:path";
import { z } from "zod";
import pkg from "../../package.json";
import { isStdio, type ServerEntry } from "./config.ts";
import type { McpLimits } from "./limits.ts";
import { StdioServerTransport } from "./stdio-transport.ts";

/** A tool exactly as the server listed it (every key kept: the whole definition is what gets pinned). */
export type RawTool = Record<string, unknown> & { name: string };

// Loose on purpose: the SDK's own schema drops keys it does not know, and unknown keys are prompt text too.
const ListToolsSchema = z.looseObject({ tools: z.array(z.looseObject({ name: z.string() })), nextCursor: z.string().optional() });

export type ServerState = "starting" | "running" | "failed" | "stopped";

/** A server's call did not give a result: the sentence says why, for the model. */
export class CallFailure extends Error {}

/**
 * One MCP server: connected with the SDK's client over our stdio transport or Streamable HTTP.
 * A crash marks the server failed; it is restarted at most once.
 */
export class ServerConnection {
  state: ServerState = "starting";
  /** Why the server failed, for events and the layers pane. */
  problem = "";
  tools: RawTool[] = [];
  instructions: string | undefined;
  private client: Client | null = null;
  private transport: Transport | null = null;
  private restarts = 0;
  private closing = false;

  constructor(
    readonly entry: ServerEntry,
    private readonly workspaceRoot: string,
    private readonly limits: McpLimits,
    /** The tool list changed (list_changed, or a restart listed again); state changes too. */
    private readonly onChange: (why: "list_changed" | "restarted" | "failed") => void,
  ) {}

  get name(): string {
    return this.entry.name;
  }

  get timeoutMs(): number {
    return this.entry.config.timeout_seconds * 1000;
  }

  async start(): Promise<void> {
    const client = new Client({ name: "glassbox", version: pkg.version }, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.relist());
    const config = this.entry.config;
    const transport: Transport = isStdio(config)
      ? new StdioServerTransport(config, resolve(this.workspaceRoot, config.cwd ?? "."))
      : new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    this.client = client;
    this.transport = transport;
    try {
      await client.connect(transport, { timeout: this.limits.start_timeout_seconds * 1000 });
      this.instructions = client.getInstructions();
      this.tools = await this.list();
      this.state = "running";
      // Set after the start, so a server that dies while starting is a failed start, not a crash.
      client.onclose = () => this.crashed();
    } catch (error) {
      this.fail(`it did not start: ${reasonOf(error, transport)}`);
      await this.closeTransport();
    }
  }

  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    if (this.state !== "running" || !this.client) throw new CallFailure(`the MCP server ${this.name} is not running (${this.problem || this.state}); do not retry, tell the user`);
    try {
      return (await this.client.request({ method: "tools/call", params: { name: tool, arguments: args } }, CallToolResultSchema, { signal, timeout: this.timeoutMs })) as CallToolResult;
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        throw new CallFailure(`the MCP server ${this.name} did not answer within ${this.entry.config.timeout_seconds}s; the call was cancelled`);
      }
      if (signal.aborted) throw new CallFailure(`the call to the MCP server ${this.name} was cancelled: the run is stopping`);
      if (this.state !== "running" || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) {
        throw new CallFailure(`the MCP server ${this.name} stopped during the call; its tools are failed, do not retry, tell the user`);
      }
      if (error instanceof McpError) throw new CallFailure(`the MCP server ${this.name} refused the call: ${error.message.slice(0, 300)}`);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.state === "running" || this.state === "starting") this.state = "stopped";
    await this.closeTransport();
  }

  private async list(): Promise<RawTool[]> {
    const tools: RawTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < this.limits.max_list_pages; page++) {
      const result = await this.client!.request({ method: "tools/list", params: cursor ? { cursor } : {} }, ListToolsSchema, { timeout: this.timeoutMs });
      tools.push(...(result.tools as RawTool[]));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  private async relist(): Promise<void> {
    if (this.state !== "running") return;
    try {
      this.tools = await this.list();
    } catch (error) {
      // A server that announces a change and then cannot list keeps none of its tools.
      this.tools = [];
      this.problem = `it could not list its tools after announcing a change: ${reasonOf(error, this.transport)}`;
    }
    this.onChange("list_changed");
  }

  private crashed(): void {
    if (this.closing || this.state !== "running") return;
    const reason = `it stopped unexpectedly${stderrOf(this.transport)}`;
    this.fail(reason);
    if (this.restarts >= 1) return this.onChange("failed");
    this.restarts++;
    this.onChange("failed");
    void this.start().then(() => {
      if (this.state === "running") this.onChange("restarted");
      else this.problem = `${reason}; the one restart failed too (${this.problem})`;
    });
  }

  /** The tools stay listed: a call to one is answered with why the server is gone, not "no such tool". */
  private fail(problem: string): void {
    this.state = "failed";
    this.problem = problem;
  }

  private async closeTransport(): Promise<void> {
    const client = this.client;
    this.client = null;
    try {
      if (client) client.onclose = undefined;
      await (client ? client.close() : this.transport?.close());
    } catch {
      // Closing a server that is already gone.
    }
  }
}

function reasonOf(error: unknown, transport: Transport | null): string {
  const message = error instanceof Error ? error.message : String(error);
  return `${message.split("\n")[0]!.slice(0, 200)}${stderrOf(transport)}`;
}

function stderrOf(transport: Transport | null): string {
  const tail = transport instanceof StdioServerTransport ? transport.stderrTail.trim().split("\n").slice(-2).join(" / ").slice(-200) : "";
  return tail ? ` (stderr: ${tail})` : "";
}
