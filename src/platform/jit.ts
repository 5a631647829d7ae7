import { noFTL } from "bun:jsc";

/**
 * The compiled binary starts with JavaScriptCore's tier-up thresholds multiplied (scripts/build.ts,
 * STARTUP_JIT_POLICY): code that runs once at start, and an idle screen, stay in the interpreter
 * instead of being compiled and kept resident. Work that repeats (a run, a report, an eval) wants
 * the JIT: this puts the normal policy back. Calling it again, or from source, changes nothing.
 */
export function normalJit(): void {
  Bun.unsafe.setJITPolicy(1);
}

/**
 * A TUI run spends its time waiting on the model and drawing at most 5 frames a second while text
 * pours in: thresholds 16 times the normal ones keep the JIT from compiling (and keeping resident)
 * code that a faster tier would not pay back. Measured with bench:tui at 2,000 tokens/s, 30 s per
 * transcript length: peak RSS 79-81 MiB at the normal policy, 70-72 MiB at 16, CPU the same within
 * the machine's noise (0.12-0.14 of a core either way); at 64, 67-68 MiB, but heavy one-off work
 * (a large diff to approve) would run longer in the interpreter. Measured again after the transcript
 * began writing its cells itself: at 16, 11.7-11.8% of a core and 55-58 MiB at peak; at 8,
 * 11.3-13.5% and 70-71 MiB; at 32, 12.5-14.8% and 59-60 MiB.
 */
export const INTERACTIVE_JIT_POLICY = 16;

export function interactiveJit(): void {
  Bun.unsafe.setJITPolicy(INTERACTIVE_JIT_POLICY);
}

/**
 * Keeps `functions` out of JavaScriptCore's top tier (FTL): code that runs per cell, per token or
 * per chunk while text pours in, at most 5 frames a second, never runs long enough to pay back an
 * FTL compile (up to 25 ms each for the transcript's cell writers, on the JIT's thread), and the
 * tier below it (DFG) already runs it fast. Measured with bench:tui, 10 s streams interleaved: the
 * JIT thread 1.9–2.5% of a core against 2.9–4.0% (docs/decisions.md, "Markdown in the transcript").
 */
export function belowTopTier(...functions: Array<(...args: never[]) => unknown>): void {
  for (const fn of functions) noFTL(fn as (...args: unknown[]) => unknown);
}
