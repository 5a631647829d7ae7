import base from "../../prompts/00-base.md" with { type: "text" };

export type LayerOrigin = "builtin" | "file" | "workspace" | "server";

/** One named piece of the system prompt, with where it came from and a digest to pin it by. */
export interface PromptLayer {
  name: string;
  origin: LayerOrigin;
  text: string;
  /** SHA-256 of the text, first 16 hex digits. */
  digest: string;
  chars: number;
}

export function makeLayer(name: string, origin: LayerOrigin, text: string): PromptLayer {
  const clean = text.trimEnd();
  const digest = new Bun.CryptoHasher("sha256").update(clean).digest("hex").slice(0, 16);
  return { name, origin, text: clean, digest, chars: clean.length };
}

/** The layers shipped with glassbox, embedded so the binary carries them. */
export function builtinLayers(): PromptLayer[] {
  return [makeLayer("00-base", "builtin", base)];
}

/** The system prompt: the layers joined by a blank line, byte-identical on every call. */
export function assemble(layers: readonly PromptLayer[]): string {
  return layers.map((layer) => layer.text).join("\n\n");
}
