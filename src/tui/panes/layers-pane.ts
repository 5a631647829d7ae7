import type { PromptLayer } from "../../prompt/layers.ts";
import type { ServerStatus } from "../../mcp/hub.ts";
import type { Widgets } from "../blessed.ts";
import { updateContent } from "../screen.ts";
import { Pane } from "./pane.ts";
import { safeTagged } from "../sanitize.ts";
import { paint } from "../theme.ts";
import { describeHidden } from "../../prompt/hidden.ts";
import type { Rect } from "../layout.ts";

/** Against prompts.lock; the map layer, never pinned (it follows the code), is "unpinned" or, holding hidden characters, "hidden text". */
export type LayerState = "locked" | "unlocked" | "added" | "changed" | "unpinned" | "hidden text";

const TOOL_COLOR = { offered: "green", quarantined: "red", "not offered": "yellow", failed: "red" } as const;
const SERVER_COLOR: Record<string, string> = { running: "green", starting: "gray", failed: "red", stopped: "gray", untrusted: "yellow" };

/** Rows the pane wants: one per layer, one per MCP server and one per server tool. */
export function layerPaneRows(layers: number, servers: readonly ServerStatus[]): number {
  return layers + servers.reduce((sum, server) => sum + 1 + server.tools.length, 0);
}

/** The map layer's row: audited as `glassbox audit` does it, for hidden characters (it is never pinned). */
export function mapLayerRow(layer: PromptLayer): PromptLayer & { state: LayerState } {
  return { ...layer, state: describeHidden(layer.text) ? "hidden text" : "unpinned" };
}

/** The system prompt's layers (name, origin, digest, size, lock state), then each MCP server and its tools with their state. */
export class LayersPane extends Pane {

  constructor(parent: Widgets.Screen, rect: Rect) {
    super(parent, rect, "prompt layers (p: show)");
  }


  draw(layers: Array<PromptLayer & { state: LayerState }>, servers: readonly ServerStatus[] = []): void {
    const color = { locked: "green", unlocked: "gray", added: "yellow", changed: "red", unpinned: "gray", "hidden text": "red" } as const;
    const lines = layers.map((layer) => `${safeTagged(layer.name)} ${layer.origin} ${layer.digest} ${layer.chars}c ${paint(color[layer.state], layer.state)}`);
    for (const server of servers) {
      const trust = server.trust === "user" ? "" : ` ${server.trust}`;
      lines.push(`mcp ${safeTagged(server.name)}${trust} ${paint(SERVER_COLOR[server.state] ?? "gray", server.state)}`);
      for (const tool of server.tools) lines.push(` ${safeTagged(tool.name)} ${tool.digest} ${paint(TOOL_COLOR[tool.state], tool.state)}`);
    }
    updateContent(this.box, lines.join("\n"));
  }
}
