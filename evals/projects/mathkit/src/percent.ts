/** `part` as a percentage of `whole`, rounded to `digits` decimals. */
export function percent(part: number, whole: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round((part / whole) * 100 * factor) / factor;
}
