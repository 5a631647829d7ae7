import { sum } from "./sum.ts";

/** The arithmetic mean; NaN for an empty list. */
export function mean(values: number[]): number {
  return sum(values) / values.length;
}

/** The middle value of the sorted list (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
