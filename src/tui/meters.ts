/** A budget meter: how full, and the colour that warns as it nears its limit. */
export interface Meter {
  label: string;
  value: number;
  /** null: no limit (shown as a plain number). */
  limit: number | null;
  unit?: string;
  /** Shown instead of a bar and figures, for a row that is not a budget (the prompt cache). */
  text?: string;
}

export type Level = "ok" | "near" | "over";

/** Colour thresholds as data: warn from 60% full, alarm from 85%. */
export const METER_THRESHOLDS = { near: 0.6, over: 0.85 } as const;

export function level(meter: Meter): Level {
  if (!meter.limit || meter.text !== undefined) return "ok";
  const fill = meter.value / meter.limit;
  return fill >= METER_THRESHOLDS.over ? "over" : fill >= METER_THRESHOLDS.near ? "near" : "ok";
}

/** `steps   ███████░░░░░  5/8` in `width` columns: label, bar, figures. */
export function meterLine(meter: Meter, width: number): string {
  if (meter.text !== undefined) return `${meter.label.padEnd(8).slice(0, 8)} ${meter.text}`.slice(0, Math.max(0, width));
  const figures = meter.limit ? `${compact(meter.value)}/${compact(meter.limit)}${meter.unit ?? ""}` : `${compact(meter.value)}${meter.unit ?? ""}`;
  const label = meter.label.padEnd(8).slice(0, 8);
  const barWidth = Math.max(0, width - label.length - figures.length - 2);
  if (!meter.limit || barWidth < 3) return `${label} ${figures}`;
  const filled = Math.min(barWidth, Math.round((meter.value / meter.limit) * barWidth));
  return `${label} ${"█".repeat(filled)}${"░".repeat(barWidth - filled)} ${figures}`;
}

/** 1234 → 1.2k, 1234567 → 1.2M: meters are narrow. */
export function compact(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${Math.round(n / 1e3)}k`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

/**
 * The prompt cache row: the share of the last prompt the server reused and that prompt's prefill
 * time, then the run's total prefill time: `92% reused 1.4s · run 12s`. A figure the server does
 * not report is `?`; nothing reported yet is `—`.
 */
export function cacheText(reusedShare: number | null, lastPrefillMs: number | null, runPrefillMs: number | null): string {
  if (reusedShare === null && lastPrefillMs === null) return "—";
  const share = reusedShare === null ? "?" : `${Math.round(reusedShare * 100)}%`;
  const last = lastPrefillMs === null ? "?" : seconds(lastPrefillMs);
  return `${share} reused ${last} · run ${runPrefillMs === null ? "?" : seconds(runPrefillMs)}`;
}

/** 850 → 0.85s, 12_300 → 12s, 125_000 → 2m05s: prefill times are short or very long. */
function seconds(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(ms < 1000 ? 2 : 1)}s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  const total = Math.round(ms / 1000);
  return `${Math.floor(total / 60)}m${String(total % 60).padStart(2, "0")}s`;
}
