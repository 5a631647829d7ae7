import type { CliArgs } from "./args.ts";
import { workspaceRoot } from "../session/workspace-root.ts";
import { loadConfig } from "../session/config.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { readLock } from "../prompt/lock.ts";
import { collectServers, isStdio, type ServerEntry } from "../mcp/config.ts";
import { McpHub } from "../mcp/hub.ts";
import { TrustStore } from "../mcp/trust.ts";
import { describeHidden } from "../prompt/hidden.ts";

/** The workspace's MCP servers, not started: for `mcp` and `audit`, which need no model or session. */
export function workspaceServers(args: CliArgs): { root: string; servers: ServerEntry[] } {
  const root = workspaceRoot(args.workspace);
  const { config, source } = loadConfig(args.config, root);
  return { root, servers: collectServers(config.mcp_servers, source, root) };
}

/** Starts the servers someone trusts (nobody is asked), for a listing; the caller closes it. */
export async function listingHub(root: string, servers: ServerEntry[]): Promise<McpHub> {
  let lock = null;
  try {
    lock = readLock(root);
  } catch {
    // A broken lock pins nothing here; audit --check says it is broken.
  }
  const hub = new McpHub(servers, root, lock, () => {});
  await hub.start();
  return hub;
}

/** `glassbox mcp list | trust NAME | forget NAME`. */
export async function mcpCommand(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): Promise<number> {
  const { root, servers } = workspaceServers(args);
  const action = args.mcp!;
  const trust = new TrustStore();
  if (action.action === "list") {
    if (!servers.length) return out("no MCP servers configured (glassbox.json mcp_servers, or .mcp.json)"), 0;
    const hub = await listingHub(root, servers);
    try {
      for (const server of hub.status()) {
        const entry = servers.find((candidate) => candidate.name === server.name)!;
        const trustText = server.trust === "user" ? "user config" : server.trust;
        out(`${server.name}  ${definitionText(entry)}  ${entry.file}  ${trustText}  ${server.state}${server.problem ? ` (${server.problem})` : ""}  hash ${entry.hash}`);
        if (server.trust === "untrusted" || server.trust === "changed") out(`  not started: review the definition, then glassbox mcp trust ${server.name}`);
        for (const tool of server.tools) {
          out(`  ${tool.name}  ${tool.digest}  ${tool.state}  ${tool.pin}${tool.reason ? ` (${tool.reason})` : ""}`);
        }
      }
      for (const tool of hub.listed()) {
        const hidden = describeHidden(JSON.stringify(tool.definition));
        if (hidden) out(`HIDDEN ${tool.name}: ${hidden}`);
      }
    } finally {
      await hub.close();
    }
    return 0;
  }
  const entry = servers.find((server) => server.name === action.server);
  if (!entry) throw new UsageError(`no MCP server named "${action.server}"; servers are: ${servers.map((server) => server.name).join(", ") || "none configured"}`);
  if (entry.source === "user") return out(`${entry.name} comes from your own config (${entry.file}) and needs no trust`), 0;
  if (action.action === "trust") {
    trust.trust(root, entry.name, entry.hash);
    out(`trusted ${entry.name} (${definitionText(entry)}, hash ${entry.hash}) for ${root}, in ${trust.path}`);
  } else {
    out(trust.forget(root, entry.name) ? `forgot the trust in ${entry.name} for ${root}` : `${entry.name} was not trusted for ${root}`);
  }
  return 0;
}

function definitionText(entry: ServerEntry): string {
  const config = entry.config;
  if (!isStdio(config)) return `url ${config.url}`;
  const env = [...Object.keys(config.env), ...config.env_pass];
  return `command ${JSON.stringify(config.command)}${env.length ? ` env ${env.join(",")}` : ""}`;
}
