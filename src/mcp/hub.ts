import type { AgentEvent } from "../protocol/events.ts";
import type { Tool } from "../tools/tool.ts";
import { makeLayer, type PromptLayer } from "../prompt/layers.ts";
import type { Lock } from "../prompt/lock.ts";
import type { ServerConnection, ServerState } from "./client.ts";
import { mcpToolName, type ServerEntry } from "./config.ts";
import { MCP_LIMITS, type McpLimits } from "./limits.ts";
import { pinState, toolDigest, type ListedTool, type PinState } from "./pinning.ts";
import { TrustStore, type TrustState } from "./trust.ts";

/**
 * The SDK and Ajv, loaded only once a server is about to start: imported at start they cost every
 * session about 30 ms before the first frame and 18 MiB resident (measured on the compiled
 * binary), most sessions have no server. A literal import, so the binary still carries them.
 */
async function loadClient() {
  const [client, tool, schema] = await Promise.all([import("./client.ts"), import("./tool.ts"), import("./schema.ts")]);
  return { ServerConnection: client.ServerConnection, wrapServerTool: tool.wrapServerTool, SchemaProblem: schema.SchemaProblem };
}
type Client = Awaited<ReturnType<typeof loadClient>>;

export type ToolState = "offered" | "quarantined" | "not offered" | "failed";

export interface ToolStatus {
  name: string;
  digest: string;
  state: ToolState;
  pin: PinState;
  reason: string;
}

export interface ServerStatus {
  name: string;
  source: ServerEntry["source"];
  /** "user": from the user's own config, needs no trust. */
  trust: TrustState | "user";
  state: ServerState | "untrusted";
  problem: string;
  tools: ToolStatus[];
}

/** Questions for a person (the TUI); headless there is nobody, and the answer is no. */
export interface HubQuestions {
  trust?(entry: ServerEntry, state: TrustState): Promise<boolean>;
  quarantine?(tool: string, why: string, description: string): Promise<boolean>;
}

/**
 * The session's MCP servers: trust before start, every tool wrapped for the checkpoint, each
 * definition checked against prompts.lock and against what the server said first this session.
 */
export class McpHub {
  private readonly connections: ServerConnection[] = [];
  private readonly untrusted = new Map<string, TrustState>();
  private readonly statuses = new Map<string, ToolStatus[]>();
  private readonly offered = new Map<string, Tool>();
  /** Each tool's digest when the session first saw it: a later change is a rug pull until someone looks. */
  private readonly firstSeen = new Map<string, string>();
  /** Definitions a person approved out of quarantine, this session only. */
  private readonly approved = new Set<string>();
  private questions: HubQuestions = {};
  private client: Client | null = null;

  constructor(
    readonly servers: ServerEntry[],
    private readonly workspaceRoot: string,
    private readonly lock: Lock | null,
    private readonly emit: (event: AgentEvent) => void,
    private readonly trust: TrustStore = new TrustStore(),
    private readonly limits: McpLimits = MCP_LIMITS,
  ) {}

  /** Called when what the hub offers or shows changed (the TUI redraws its layers pane). */
  onChange: () => void = () => {};

  /** Starts every server someone trusts (asking where a person is there), then lists and checks their tools. */
  async start(questions: HubQuestions = {}): Promise<void> {
    this.questions = questions;
    const startable: ServerEntry[] = [];
    for (const entry of this.servers) {
      if (await this.mayStart(entry)) startable.push(entry);
    }
    if (!startable.length) return;
    const client = (this.client ??= await loadClient());
    const connections = startable.map((entry) => {
      const server: ServerConnection = new client.ServerConnection(entry, this.workspaceRoot, this.limits, (why) => void this.refresh(server, why));
      return server;
    });
    this.connections.push(...connections);
    await Promise.all(connections.map((server) => server.start()));
    for (const server of connections) await this.refresh(server, "started");
  }

  /** The tools offered right now. */
  tools(): Tool[] {
    return [...this.offered.values()];
  }

  /** Each running server's instructions, as a prompt layer (origin server). */
  layers(): PromptLayer[] {
    return this.connections.filter((server) => server.instructions?.trim()).map((server) => makeLayer(`server:${server.name}`, "server", server.instructions!));
  }

  /** Every tool the running servers list, with its digest: what `audit` and `mcp list` show. */
  listed(): ListedTool[] {
    return this.connections.flatMap((server) =>
      server.tools.map((definition) => ({ name: mcpToolName(server.name, definition.name), server: server.name, digest: toolDigest(definition), definition })),
    );
  }

  status(): ServerStatus[] {
    return this.servers.map((entry) => {
      const server = this.connections.find((candidate) => candidate.name === entry.name);
      const trust = entry.source === "user" ? "user" : (this.untrusted.get(entry.name) ?? "trusted");
      return {
        name: entry.name,
        source: entry.source,
        trust,
        state: server ? server.state : "untrusted",
        problem: server?.problem ?? "",
        tools: this.statuses.get(entry.name) ?? [],
      };
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((server) => server.close()));
  }

  private async mayStart(entry: ServerEntry): Promise<boolean> {
    // The user's own config needs no approval; the repository's files do, for this exact definition.
    if (entry.source !== "workspace") return true;
    const state = this.trust.state(this.workspaceRoot, entry.name, entry.hash);
    if (state === "trusted") return true;
    if (this.questions.trust && (await this.questions.trust(entry, state))) {
      this.trust.trust(this.workspaceRoot, entry.name, entry.hash);
      return true;
    }
    this.untrusted.set(entry.name, state);
    const why = state === "changed" ? "its definition changed since it was trusted" : "nobody trusted its definition yet";
    this.emit({
      kind: "mcp_untrusted",
      server: entry.name,
      file: entry.file,
      hash: entry.hash,
      reason: `the ${entry.file} server ${entry.name} was not started: ${why}; review it, then run glassbox mcp trust ${entry.name}`,
    });
    return false;
  }

  /** Lists a server's tools again and decides, tool by tool, what is offered. */
  private async refresh(server: ServerConnection, why: "started" | "list_changed" | "restarted" | "failed"): Promise<void> {
    for (const name of [...this.offered.keys()]) if (name.startsWith(mcpToolName(server.name, ""))) this.offered.delete(name);
    if (why !== "list_changed") {
      this.emit({ kind: "mcp_server", server: server.name, state: why === "started" ? server.state : why, tools: server.tools.length, reason: server.problem });
    }
    const statuses: ToolStatus[] = [];
    for (const definition of server.tools) {
      const name = mcpToolName(server.name, definition.name);
      const digest = toolDigest(definition);
      const pin = pinState(this.lock, name, digest);
      const status: ToolStatus = server.state === "failed" ? { name, digest, state: "failed", pin, reason: server.problem } : { name, digest, state: "offered", pin, reason: "" };
      statuses.push(status);
      const quarantine = this.quarantineReason(name, digest, pin);
      if (quarantine && !(why === "started" && (await this.askToRelease(name, digest, quarantine, definition.description)))) {
        Object.assign(status, { state: "quarantined", reason: quarantine });
        const locked = this.lock?.tools?.find((tool) => tool.name === name)?.digest ?? null;
        this.emit({ kind: "tool_quarantined", tool: name, server: server.name, digest, locked, reason: `${name} was not offered: ${quarantine}` });
        continue;
      }
      if (!this.firstSeen.has(name)) this.firstSeen.set(name, digest);
      try {
        this.offered.set(name, this.client!.wrapServerTool(server, definition, digest, this.limits));
      } catch (error) {
        if (!(error instanceof this.client!.SchemaProblem)) throw error;
        Object.assign(status, { state: "not offered", reason: error.message });
        this.emit({ kind: "tool_not_offered", tool: name, server: server.name, reason: `${name} was not offered: ${error.message}` });
      }
    }
    this.statuses.set(server.name, statuses);
    this.onChange();
  }

  /** Why a definition may not be offered without a person looking at it; null when it may. */
  private quarantineReason(name: string, digest: string, pin: PinState): string | null {
    if (this.approved.has(`${name}\u0000${digest}`)) return null;
    const first = this.firstSeen.get(name);
    if (first !== undefined && first !== digest) return `its definition changed during the session (${first} -> ${digest})`;
    if (pin === "changed") return `its definition differs from prompts.lock (now ${digest}); review it with glassbox audit --check, then glassbox audit --write-lock`;
    if (pin === "added") return `it is not pinned in prompts.lock; review it with glassbox audit --check, then glassbox audit --write-lock`;
    return null;
  }

  private async askToRelease(name: string, digest: string, why: string, description: unknown): Promise<boolean> {
    if (!this.questions.quarantine) return false;
    const yes = await this.questions.quarantine(name, why, typeof description === "string" ? description : "");
    if (yes) {
      this.approved.add(`${name}\u0000${digest}`);
      this.firstSeen.set(name, digest);
    }
    return yes;
  }
}
