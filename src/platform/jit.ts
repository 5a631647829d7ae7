/**
 * The compiled binary starts with JavaScriptCore's tier-up thresholds multiplied (scripts/build.ts,
 * STARTUP_JIT_POLICY): code that runs once at start, and an idle screen, stay in the interpreter
 * instead of being compiled and kept resident. Work that repeats (a run, a report, an eval) wants
 * the JIT: this puts the normal policy back. Calling it again, or from source, changes nothing.
 */
export function normalJit(): void {
  Bun.unsafe.setJITPolicy(1);
}
