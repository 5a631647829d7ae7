/** A budget meter: how full, and the colour that warns as it nears its limit. */
export interface Meter {
  label: string;
  value: number;
  /** null: no limit (shown as a plain number). */
  limit: number | null;
  unit?: string;
}

export type Level = "ok" | "near" | "over";

/** Colour thresholds as data: warn from 60% full, alarm from 85%. */
export const METER_THRESHOLDS = { near: 0.6, over: 0.85 } as const;

export function level(meter: Meter): Level {
  if (!meter.limit) return "ok";
  const fill = meter.value / meter.limit;
  return fill >= METER_THRESHOLDS.over ? "over" : fill >= METER_THRESHOLDS.near ? "near" : "ok";
}

/** `steps   ███████░░░░░  5/8` in `width` columns: label, bar, figures. */
export function meterLine(meter: Meter, width: number): string {
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
