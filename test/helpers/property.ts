/**
 * Settings for the property tests (fast-check). Each property has a fixed seed, so `npm test`
 * runs the same cases every time and a failure names the seed and the path that replay it
 * (`fc.assert` prints both). FC_SEED and FC_RUNS change them for a longer hunt by hand:
 *
 *   FC_SEED=$RANDOM FC_RUNS=2000 npx bun test test/model/text-calls/property.test.ts
 *
 * `timeLimitMs`: a property whose runs are slow (a socket, a git process) stops there and fails,
 * shrinking included, so a failure is reported before the test's own timeout cuts it off unsaid.
 */
import fc from "fast-check";

export function settings<T>(seed: number, numRuns: number, timeLimitMs?: number): fc.Parameters<T> {
  return {
    seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : seed,
    numRuns: process.env.FC_RUNS ? Number(process.env.FC_RUNS) : numRuns,
    ...(timeLimitMs && !process.env.FC_RUNS ? { plugins: [fc.interruptAfterTimeLimit(timeLimitMs, { failOnInterrupt: true })] } : {}),
  };
}
