import base from "../../prompts/00-base.md" with { type: "text" };

/** The system prompt: glassbox's shipped layers. Byte-identical on every call (no timestamps). */
export function systemPrompt(): string {
  return base.trimEnd();
}
