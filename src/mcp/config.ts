import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { z } from "zod";
import { PARSE_ONCE } from "../protocol/zod-start.ts";
import { canonicalJson } from "../protocol/canonical.ts";
import { UsageError } from "../protocol/usage-error.ts";

/** What the model calls a server's tool: `__` separates server and tool (a server name never holds it). */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/** A server name becomes part of a tool name (`mcp__NAME__TOOL`), so it is kept to what every model API accepts. */
export const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

const TIMEOUT = z.number().positive().max(3600).default(60);

const StdioServerSchema = z
  .object({
    command: z.array(z.string().min(1)).min(1),
    env: z.record(z.string(), z.string()).default({}),
    env_pass: z.array(z.string().min(1)).default([]),
    cwd: z.string().optional(),
    timeout_seconds: TIMEOUT,
  })
  .strict();

const HttpServerSchema = z
  .object({
    url: z.string().refine(allowedUrl, "must be https://, or http:// on a loopback address (127.0.0.1, ::1, localhost)"),
    headers: z.record(z.string(), z.string()).default({}),
    timeout_seconds: TIMEOUT,
  })
  .strict();

export const McpServerSchema = z.union([StdioServerSchema, HttpServerSchema]);
export const McpServersSchema = z.record(
  z.string().regex(SERVER_NAME, "a server name is letters, digits and -, with single _ between them (it becomes mcp__NAME__TOOL)"),
  McpServerSchema,
);

export type StdioServer = z.infer<typeof StdioServerSchema>;
export type HttpServer = z.infer<typeof HttpServerSchema>;
export type McpServerConfig = StdioServer | HttpServer;

/** Where a definition came from: the workspace's own files (whoever wrote the repository), or the user's config. */
export type ServerSource = "workspace" | "user";

export interface ServerEntry {
  name: string;
  config: McpServerConfig;
  source: ServerSource;
  /** Which file defined it, for messages. */
  file: string;
  /** SHA-256 of the definition a person trusts: command, args, env (names and values), env_pass names, cwd, URL, header names. */
  hash: string;
}

export function isStdio(config: McpServerConfig): config is StdioServer {
  return "command" in config;
}

function allowedUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.protocol === "https:") return true;
  // Plain HTTP crosses no network only on loopback.
  return url.protocol === "http:" && ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
}

/** The trusted definition, hashed: env values are hashed too (an injected LD_PRELOAD must ask again), never stored. */
export function definitionHash(config: McpServerConfig): string {
  const shape = isStdio(config)
    ? { command: config.command, env: config.env, env_pass: config.env_pass, cwd: config.cwd ?? null }
    : { url: config.url, headers: Object.keys(config.headers).sort() };
  return new Bun.CryptoHasher("sha256").update(canonicalJson(shape)).digest("hex").slice(0, 16);
}

/** `.mcp.json` as other agents write it: {"mcpServers": {NAME: {"command", "args", "env"} | {"type": "http", "url", "headers"}}}. */
const DotMcpStdioSchema = z.looseObject({ command: z.string().min(1), args: z.array(z.string()).default([]), env: z.record(z.string(), z.string()).default({}), cwd: z.string().optional() });
const DotMcpHttpSchema = z.looseObject({ type: z.enum(["http", "streamable-http"]).optional(), url: z.string(), headers: z.record(z.string(), z.string()).default({}) });
const DotMcpSchema = z.object({ mcpServers: z.record(z.string(), z.union([DotMcpStdioSchema, DotMcpHttpSchema])).default({}) });

export const DOT_MCP = ".mcp.json";

/**
 * Every configured server: the config's `mcp_servers` (workspace-defined when the config file is
 * inside the workspace), then the workspace's `.mcp.json` for names the config does not have.
 */
export function collectServers(configured: Record<string, McpServerConfig>, configSource: string | null, workspaceRoot: string): ServerEntry[] {
  const configSourceKind: ServerSource = configSource && inside(workspaceRoot, configSource) ? "workspace" : "user";
  const entries: ServerEntry[] = Object.entries(configured).map(([name, config]) => entry(name, config, configSourceKind, configSource ?? "config"));
  for (const [name, config] of Object.entries(readDotMcp(workspaceRoot))) {
    if (!(name in configured)) entries.push(entry(name, config, "workspace", DOT_MCP));
  }
  return entries;
}

function entry(name: string, config: McpServerConfig, source: ServerSource, file: string): ServerEntry {
  return { name, config, source, file, hash: definitionHash(config) };
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, resolve(path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function readDotMcp(workspaceRoot: string): Record<string, McpServerConfig> {
  const path = join(workspaceRoot, DOT_MCP);
  if (!existsSync(path)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new UsageError(`${DOT_MCP} is not valid JSON (${(error as Error).message}); fix or remove it`);
  }
  const parsed = DotMcpSchema.safeParse(raw, PARSE_ONCE);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`${DOT_MCP}: ${issue.path.join(".") || "the file"} ${issue.message}; expected {"mcpServers": {NAME: {"command", "args"} | {"url"}}}`);
  }
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, server] of Object.entries(parsed.data.mcpServers)) {
    const stdio = DotMcpStdioSchema.safeParse(server, PARSE_ONCE);
    const converted = stdio.success
      ? { command: [stdio.data.command, ...stdio.data.args], env: stdio.data.env, ...(stdio.data.cwd ? { cwd: stdio.data.cwd } : {}) }
      : { url: (server as z.infer<typeof DotMcpHttpSchema>).url, headers: (server as z.infer<typeof DotMcpHttpSchema>).headers };
    if (!SERVER_NAME.test(name)) throw new UsageError(`${DOT_MCP}: server name "${name}" must be letters, digits and -, with single _ between them`);
    const checked = McpServerSchema.safeParse(converted, PARSE_ONCE);
    if (!checked.success) throw new UsageError(`${DOT_MCP}: mcpServers.${name}: ${checked.error.issues[0]!.message}`);
    servers[name] = checked.data;
  }
  return servers;
}
