/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/**
 * The Wilson score interval for a pass rate: unlike the normal approximation it stays inside
 * [0, 1] and is honest at 0/n and n/n, which small task sets hit often.
 */
export function wilsonInterval(passed: number, runs: number, z = Z95): { low: number; high: number } {
  if (runs === 0) return { low: 0, high: 1 };
  const rate = passed / runs;
  const denominator = 1 + (z * z) / runs;
  const centre = (rate + (z * z) / (2 * runs)) / denominator;
  const half = (z * Math.sqrt((rate * (1 - rate)) / runs + (z * z) / (4 * runs * runs))) / denominator;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
