import type { Decision } from "../protocol/events.ts";
import type { Level } from "./meters.ts";
import type { Voice } from "./transcript-buffer.ts";

/** Colours as blessed tags. Every piece of untrusted text inside them is escaped first. */
export const VOICE_STYLE: Record<Voice, [open: string, close: string]> = {
  user: ["{bold}{cyan-fg}", "{/cyan-fg}{/bold}"],
  assistant: ["", ""],
  thinking: ["{gray-fg}", "{/gray-fg}"],
  tool: ["{yellow-fg}", "{/yellow-fg}"],
  result: ["{gray-fg}", "{/gray-fg}"],
  notice: ["{magenta-fg}", "{/magenta-fg}"],
  fold: ["{cyan-fg}", "{/cyan-fg}"],
};

export const DECISION_COLOR: Record<Decision, string> = {
  allowed: "green",
  refused: "yellow",
  denied: "red",
  error: "magenta",
  stopped: "red",
};

export const LEVEL_COLOR: Record<Level, string> = { ok: "green", near: "yellow", over: "red" };

export function paint(color: string, text: string): string {
  return `{${color}-fg}${text}{/${color}-fg}`;
}
