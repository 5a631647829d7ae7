import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { collectServers, definitionHash, McpServersSchema, type StdioServer } from "../../src/mcp/config.ts";
import { serverEnvironment } from "../../src/mcp/stdio-transport.ts";
import { TrustStore, trustPath } from "../../src/mcp/trust.ts";
import { parseRule, Policy } from "../../src/core/policy.ts";
import { TOOL_NAMES } from "../../src/tools/index.ts";
import { tempFolder } from "../helpers/workspace.ts";

const stdio = (extra: Record<string, unknown> = {}) => McpServersSchema.parse({ s: { command: ["srv", "--stdio"], ...extra } }).s as StdioServer;

describe("mcp_servers config", () => {
  test("http:// only on loopback; https anywhere", () => {
    for (const url of ["http://127.0.0.1:7777/mcp", "http://localhost:1/mcp", "http://[::1]:8/mcp", "https://example.com/mcp"]) {
      expect(McpServersSchema.safeParse({ s: { url } }).success).toBe(true);
    }
    for (const url of ["http://example.com/mcp", "http://10.0.0.2/mcp", "ftp://127.0.0.1/x", "not a url"]) {
      expect(McpServersSchema.safeParse({ s: { url } }).success).toBe(false);
    }
  });

  test("server names cannot hold __ (it separates server and tool in mcp__SERVER__TOOL)", () => {
    expect(McpServersSchema.safeParse({ "a__b": { command: ["x"] } }).success).toBe(false);
    expect(McpServersSchema.safeParse({ "my-server_2": { command: ["x"] } }).success).toBe(true);
  });

  test("a stdio server's environment: PATH, HOME, LANG, TERM, env and env_pass only", () => {
    const from = { PATH: "/bin", HOME: "/h", LANG: "C", TERM: "xterm", AWS_SECRET_ACCESS_KEY: "s3cr3t", TOKEN: "t", USER: "me" };
    expect(serverEnvironment(stdio({ env: { MODE: "x" }, env_pass: ["TOKEN"] }), from)).toEqual({ PATH: "/bin", HOME: "/h", LANG: "C", TERM: "xterm", TOKEN: "t", MODE: "x" });
  });

  test("the definition hash covers command, env names and values, env_pass and the URL", () => {
    const base = definitionHash(stdio());
    expect(definitionHash(stdio())).toBe(base);
    expect(definitionHash(stdio({ command: ["srv", "--other"] }))).not.toBe(base);
    expect(definitionHash(stdio({ env: { LD_PRELOAD: "x" } }))).not.toBe(base);
    expect(definitionHash(stdio({ env_pass: ["TOKEN"] }))).not.toBe(base);
    expect(definitionHash(stdio({ timeout_seconds: 5 }))).toBe(base);
  });

  test("servers from a config inside the workspace and from .mcp.json are the workspace's; --config outside is the user's", () => {
    const root = tempFolder("ws");
    writeFileSync(join(root, ".mcp.json"), JSON.stringify({ mcpServers: { docs: { type: "http", url: "http://127.0.0.1:9/mcp" }, git: { command: "git-mcp", args: ["--stdio"], env: { A: "1" } } } }));
    const configured = McpServersSchema.parse({ tracker: { command: ["tracker"] } });
    const inside = collectServers(configured, join(root, "glassbox.json"), root);
    expect(inside.map((entry) => [entry.name, entry.source, entry.file])).toEqual([
      ["tracker", "workspace", join(root, "glassbox.json")],
      ["docs", "workspace", ".mcp.json"],
      ["git", "workspace", ".mcp.json"],
    ]);
    expect(inside[2]!.config).toMatchObject({ command: ["git-mcp", "--stdio"], env: { A: "1" } });
    const outside = collectServers(configured, join(tempFolder("home"), "glassbox.json"), root);
    expect(outside.map((entry) => entry.source)).toEqual(["user", "workspace", "workspace"]);
  });

  test("a broken .mcp.json is a usage error naming the file", () => {
    const root = tempFolder("ws");
    writeFileSync(join(root, ".mcp.json"), "{");
    expect(() => collectServers({}, null, root)).toThrow(".mcp.json is not valid JSON");
  });
});

describe("trust store", () => {
  test("lives in XDG_CONFIG_HOME (default ~/.config), keyed by workspace and hash", () => {
    expect(trustPath({ XDG_CONFIG_HOME: "/x", HOME: "/h" })).toBe("/x/glassbox/trust.json");
    expect(trustPath({ HOME: "/h" })).toBe("/h/.config/glassbox/trust.json");
    const folder = tempFolder("xdg");
    mkdirSync(join(folder, "glassbox"));
    const store = new TrustStore(join(folder, "glassbox", "trust.json"));
    expect(store.state("/ws", "s", "h1")).toBe("untrusted");
    store.trust("/ws", "s", "h1");
    expect(store.state("/ws", "s", "h1")).toBe("trusted");
    expect(store.state("/other", "s", "h1")).toBe("untrusted");
    expect(store.state("/ws", "s", "h2")).toBe("changed");
    expect(store.forget("/ws", "s")).toBe(true);
    expect(store.state("/ws", "s", "h1")).toBe("untrusted");
  });
});

describe("rules for MCP tools", () => {
  const rule = (text: string) => parseRule(text, TOOL_NAMES, ["srv"]);
  test("mcp__srv__tool and mcp__srv__* name one server's tools", () => {
    const policy = new Policy([rule("mcp__srv__read")], [rule("mcp__srv__*")]);
    expect(new Policy([rule("mcp__srv__read")]).decide("mcp__srv__read", undefined)).toMatchObject({ verdict: "allow" });
    expect(new Policy([rule("mcp__srv__read")]).decide("mcp__srv__write", undefined)).toEqual({ verdict: "ask" });
    expect(new Policy([rule("mcp__srv__*")]).decide("mcp__srv__write", undefined)).toMatchObject({ verdict: "allow" });
    expect(new Policy([rule("mcp__srv__*")]).decide("mcp__srvx__write", undefined)).toEqual({ verdict: "ask" });
    expect(policy.decide("mcp__srv__read", undefined)).toMatchObject({ verdict: "deny" });
  });

  test("a bare mcp__* (every server at once) is an error, and so is an unknown server", () => {
    expect(() => rule("mcp__*")).toThrow("a rule for every server's tools at once is not allowed");
    expect(() => rule("mcp__other__x")).toThrow('unknown MCP server "other"');
  });
});
