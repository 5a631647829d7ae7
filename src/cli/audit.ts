import { writeFileSync } from "node:fs";
import { assemble, type PromptLayer } from "../prompt/layers.ts";
import { compareToLock, formatFinding, LOCK_FILE, lockPath, lockText, readLock } from "../prompt/lock.ts";
import type { CliArgs } from "./args.ts";
import { workspaceLayers } from "../session/session.ts";
import { compareTools, formatToolFinding, hiddenFindings, type ListedTool } from "../mcp/pinning.ts";
import { listingHub, workspaceServers } from "./mcp.ts";
import { mapLayer } from "../session/map-layer.ts";
import { loadConfig } from "../session/config.ts";
import { Workspace } from "../files/workspace.ts";

/**
 * `glassbox audit`: the prompt-layer inventory. --check exits 1 with one line per finding when
 * the layers drifted from prompts.lock; --write-lock pins the current layers.
 */
export async function audit(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): Promise<number> {
  const { root, servers } = workspaceServers(args);
  const layers = workspaceLayers(root);
  let tools: ListedTool[] = [];
  if (servers.length) {
    // The servers' tools are part of what the model reads: list them (trusted servers only).
    const hub = await listingHub(root, servers);
    try {
      const names = new Set(layers.map((layer) => layer.name));
      layers.push(...hub.layers().filter((layer) => !names.has(layer.name)));
      tools = hub.listed();
      for (const server of hub.status()) {
        if (server.state !== "running") out(`note: MCP server ${server.name} is ${server.state}${server.problem ? ` (${server.problem})` : ""}: its tools are not listed${server.state === "untrusted" ? ` (glassbox mcp trust ${server.name})` : ""}`);
      }
    } finally {
      await hub.close();
    }
  }
  // The map layer (config repo_map.layer) is shown and searched for hidden text, never pinned: it follows the code.
  const map = await mapLayer(new Workspace(root), loadConfig(args.config, root).config);
  const shown = map ? [...layers, map] : layers;
  switch (args.auditMode) {
    case "write-lock":
      writeFileSync(lockPath(root), lockText(layers, servers.length ? tools : undefined));
      out(`wrote ${LOCK_FILE}: ${layers.length} layers${servers.length ? `, ${tools.length} MCP tools` : ""}`);
      for (const layer of layers) out(`  ${layer.name} (${layer.origin}) ${layer.digest}`);
      for (const tool of tools) out(`  ${tool.name} (tool) ${tool.digest}`);
      return 0;
    case "check": {
      let lock;
      try {
        lock = readLock(root);
      } catch (error) {
        out((error as Error).message);
        return 1;
      }
      if (!lock) {
        out(`no ${LOCK_FILE} in the workspace: read the layers (glassbox audit --print), then pin them with glassbox audit --write-lock`);
        return 1;
      }
      const findings = [
        ...compareToLock(lock, layers).map(formatFinding),
        ...(lock.tools || tools.length ? compareTools(lock, tools).map(formatToolFinding) : []),
        ...hiddenFindings([
          ...shown.map((layer) => ({ what: `layer ${layer.name}`, text: layer.text })),
          ...tools.map((tool) => ({ what: `tool ${tool.name}`, text: JSON.stringify(tool.definition) })),
        ]),
      ];
      for (const finding of findings) out(finding);
      if (findings.length === 0) out(`${LOCK_FILE} matches: ${layers.length} layers${tools.length ? `, ${tools.length} MCP tools` : ""}`);
      return findings.length ? 1 : 0;
    }
    case "print":
      table(shown, tools, out);
      out("");
      out(assemble(shown));
      return 0;
    default:
      table(shown, tools, out);
      return 0;
  }
}

function table(layers: PromptLayer[], tools: ListedTool[], out: (line: string) => void): void {
  layerTable(layers, out);
  if (!tools.length) return;
  out("");
  const rows = [["tool", "server", "digest", "chars"], ...tools.map((tool) => [tool.name, tool.server, tool.digest, String(JSON.stringify(tool.definition).length)])];
  printRows(rows, out);
}

/** One row per layer (name, origin, digest, size) and a total. */
export function layerTable(layers: PromptLayer[], out: (line: string) => void): void {
  const rows = [["name", "origin", "digest", "chars"], ...layers.map((layer) => [layer.name, layer.origin, layer.digest, String(layer.chars)])];
  rows.push(["total", `${layers.length} layers`, "", String(layers.reduce((sum, layer) => sum + layer.chars, 0))]);
  printRows(rows, out);
}

/** Columns padded to their widest cell; the last one (a size) right-aligned. */
function printRows(rows: string[][], out: (line: string) => void): void {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) out(row.map((cell, column) => (column === 3 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join("  ").trimEnd());
}
