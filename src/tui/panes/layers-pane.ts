import type { PromptLayer } from "../../prompt/layers.ts";
import { updateContent, type Widgets } from "../blessed.ts";
import { Pane } from "./pane.ts";
import { safeTagged } from "../sanitize.ts";
import { paint } from "../theme.ts";
import type { Rect } from "../layout.ts";

export type LayerState = "locked" | "unlocked" | "added" | "changed";

/** The system prompt's layers: name, origin, digest, size, and whether it matches prompts.lock. */
export class LayersPane extends Pane {

  constructor(parent: Widgets.Screen, rect: Rect) {
    super(parent, rect, "prompt layers (p: show)");
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
