import type { PromptLayer } from "../../prompt/layers.ts";
import { blessed, updateContent, type Widgets } from "../blessed.ts";
import { safeTagged } from "../sanitize.ts";
import { paint } from "../theme.ts";
import type { Rect } from "../layout.ts";

export type LayerState = "locked" | "unlocked" | "added" | "changed";

/** The system prompt's layers: name, origin, digest, size, and whether it matches prompts.lock. */
export class LayersPane {
  readonly box: Widgets.BoxElement;

  constructor(parent: Widgets.Screen, rect: Rect) {
    this.box = blessed.box({ parent, ...rect, border: "line", label: " prompt layers (p: show) ", tags: true, wrap: false, style: { border: { fg: "gray" } } });
  }

  place(rect: Rect): void {
    Object.assign(this.box, { left: rect.left, top: rect.top, width: rect.width, height: rect.height });
  }

  draw(layers: Array<PromptLayer & { state: LayerState }>): void {
    const color = { locked: "green", unlocked: "gray", added: "yellow", changed: "red" } as const;
    updateContent(
      this.box,
      layers
        .map((layer) => `${safeTagged(layer.name)} ${layer.origin} ${layer.digest} ${layer.chars}c ${paint(color[layer.state], layer.state)}`)
        .join("\n"),
    );
  }
}
