import type { ModelDelta } from "../protocol/model.ts";

const count = (value: unknown) => typeof value === "number" && Number.isFinite(value) && value >= 0;
const countOrNull = (value: unknown) => value === undefined || value === null || count(value);
const textOrNone = (value: unknown) => value === undefined || typeof value === "string";

/**
 * Whether a delta read from a server's JSON has the types ModelDelta declares. That JSON may hold
 * anything (another version of the server, a proxy): a number where text belongs, a list for a
 * tool's name or a string for a count would otherwise pass, typed as what it is not, into
 * everything after the reader. A reader ends the reply with a ModelError on such a delta.
 */
export function wellTyped(delta: ModelDelta): boolean {
  switch (delta.type) {
    case "text":
    case "thinking":
      return typeof delta.text === "string";
    case "tool_call":
      return Number.isSafeInteger(delta.index) && delta.index >= 0 && textOrNone(delta.id) && textOrNone(delta.name);
    case "usage":
      return count(delta.prompt_tokens) && count(delta.gen_tokens) && countOrNull(delta.tokens_per_second) && countOrNull(delta.cached_tokens) && countOrNull(delta.prefill_ms);
    case "done":
      return delta.finish_reason === null || typeof delta.finish_reason === "string";
    default:
      return true;
  }
}
