import demoScript from "./demo-script.json";
import { ScriptSchema, ScriptedModel } from "./scripted.ts";
import type { ModelClient } from "../protocol/model.ts";
import { PARSE_ONCE } from "../protocol/zod-start.ts";

export const DEMO_MODEL = "scripted:demo";

/**
 * The built-in scripted model: it lists and reads files, tries to read outside the workspace and
 * is refused, runs the tests and sees them fail, proposes an edit, runs the tests again and
 * finishes. `paceMs` streams it at a model's pace for the TUI.
 */
export function demoModel(paceMs = 0): ModelClient {
  return new ScriptedModel(DEMO_MODEL, ScriptSchema.parse(demoScript, PARSE_ONCE), paceMs);
}
