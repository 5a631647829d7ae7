import { ConfigSchema } from "../session/config.ts";
import { PARSE_ONCE } from "../protocol/zod-start.ts";
import { valueAt, withValueAt } from "../protocol/key-path.ts";
import { pairUp } from "./report.ts";
import type { RunVerdict } from "./runner.ts";

/**
 * `glassbox tune`'s battery and settings, as data. Each setting is one config key path and the
 * value tune tries against the default, on the same tasks and seeds; adding a setting is adding a
 * line here.
 */
export interface TuneSetting {
  /** The config key path (`components.loose_edits`). */
  key: string;
  /** The value the B arm runs with; the A arm (the baseline) runs with the default. */
  alternative: unknown;
}

export const TUNE_SETTINGS: TuneSetting[] = [
  { key: "text_tool_calls", alternative: false },
  { key: "components.loose_edits", alternative: false },
  { key: "components.guarded_edits", alternative: false },
  { key: "components.observation_caps", alternative: false },
  { key: "context.soft_ratio", alternative: 0.6 },
  { key: "model_options.max_tokens", alternative: 4096 },
  { key: "model_options.temperature", alternative: 0 },
  // Where the template knows tools, auto speaks native; the prompted protocol is the other way to the same model.
  { key: "tool_protocol", alternative: "prompted" },
];

/**
 * Twelve tasks of the eval lab (packed into glassbox with their projects: battery.ts), one or two of each kind a model meets in a day's work (a fix at
 * the source, a bug to name, a rename across files, an edit that must parse, edits whose
 * whitespace drifts, calls, a window that fills, a failing call, a gate).
 */
export const BATTERY = [
  "mathkit-fix-sum",
  "dates-fix-leap",
  "logscan-fix-level",
  "textkit-find-truncate",
  "todo-rename-pending",
  "dates-guarded-month",
  "textkit-loose-indent",
  "mathkit-loose-trailing",
  "cartcalc-text-calls-json",
  "logscan-context-summary",
  "cartcalc-stall-rerun",
  "todo-gate-two-bugs",
];

/** --quick: five of them, enough to name traits in minutes; too few pairs to change a setting. */
export const QUICK_BATTERY = ["mathkit-fix-sum", "textkit-find-truncate", "todo-rename-pending", "dates-guarded-month", "textkit-loose-indent"];

export const BASELINE_ARM = "baseline";

/** Below this McNemar p a setting's other value is taken (when it passed more). */
export const SIGNIFICANT_P = 0.05;

/** An arm's name, and its results folder's: the key path and the value it tries. */
export const armName = (setting: TuneSetting) => `${setting.key}=${String(setting.alternative)}`;

/** An arm's config: what every arm shares (how the server is reached) with the setting's value on top. */
export const armConfig = (shared: Record<string, unknown>, setting: TuneSetting) => withValueAt(shared, setting.key, setting.alternative);

const DEFAULT_CONFIG = ConfigSchema.parse({}, PARSE_ONCE) as unknown as Record<string, unknown>;

/** The default of a key path (undefined: unset, the server's own). */
export const defaultOf = (key: string): unknown => valueAt(DEFAULT_CONFIG, key);

/** What tune concluded of one setting. */
export interface SettingResult {
  key: string;
  /** The value recommended: the alternative when it won significantly, else the default. */
  value: unknown;
  changed: boolean;
  /** Passes of the A (default) and B (alternative) arms on the pairs both ran. */
  passesA: number;
  passesB: number;
  pairs: number;
  p: number;
}

/** The default against the alternative, paired by task and seed: changed only when B passed more and p < 0.05. */
export function judgeSetting(setting: TuneSetting, baseline: RunVerdict[], arm: RunVerdict[]): SettingResult {
  const { overall } = pairUp(baseline, arm);
  const passesA = overall.both + overall.onlyA;
  const passesB = overall.both + overall.onlyB;
  const changed = overall.p < SIGNIFICANT_P && passesB > passesA;
  return { key: setting.key, value: changed ? setting.alternative : defaultOf(setting.key), changed, passesA, passesB, pairs: overall.pairs, p: overall.p };
}

/** `SETTING: VALUE (kept|changed) — A/B passes, p=P` */
export function settingLine(result: SettingResult): string {
  const value = result.value === undefined ? "unset (the server's default)" : JSON.stringify(result.value);
  return `${result.key}: ${value} (${result.changed ? "changed" : "kept"}) — ${result.passesA}/${result.passesB} passes, p=${result.p.toFixed(3)}`;
}
