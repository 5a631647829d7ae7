import type { Mutant } from "../mutate.ts";

/** Will this model work (issue 50): loose edits as a switch, a cut reply read as cut, glassbox tune and its profiles. */
export const MUTANTS: Mutant[] = [
  {
    name: "components.loose_edits off still matches loosely",
    file: "src/files/text-edit.ts",
    find: "  if (!loose) return { ok: false,",
    replace: "  if (false) return { ok: false,",
    tests: ["test/tools/edit_file.test.ts"],
  },
  {
    name: "doctor reads a probe reply cut at the cap as prose",
    file: "src/cli/doctor-tool-calls.ts",
    find: "  if (cutOffAtCap({ finish_reason: finish })) {",
    replace: "  if (false) {",
    tests: ["test/cli/doctor.test.ts"],
  },
  {
    name: "tune changes a setting without a significant result",
    file: "src/eval/tune.ts",
    find: "const changed = overall.p < SIGNIFICANT_P && passesB > passesA;",
    replace: "const changed = passesB > passesA;",
    tests: ["test/eval/tune.test.ts"],
  },
  {
    name: "tune changes a setting whose other value did worse",
    file: "src/eval/tune.ts",
    find: "const changed = overall.p < SIGNIFICANT_P && passesB > passesA;",
    replace: "const changed = overall.p < SIGNIFICANT_P;",
    tests: ["test/eval/tune.test.ts"],
  },
  {
    name: "tune reads a run cut at the reply cap as narration",
    file: "src/eval/traits.ts",
    find: " && !ofKind(events, \"model_reply\").some(cutOffAtCap)",
    replace: "",
    tests: ["test/eval/tune.test.ts"],
  },
  {
    name: "the profile overrides glassbox.json",
    file: "src/session/config.ts",
    find: "    if (valueAt(raw, path) !== undefined) continue;\n",
    replace: "",
    tests: ["test/session/profile.test.ts"],
  },
  {
    name: "the profile overrides the command line",
    file: "src/session/session.ts",
    find: "  return Object.fromEntries(Object.entries(applied).filter(([path]) => !overridden(path)));",
    replace: "  return applied;",
    tests: ["test/session/profile.test.ts"],
  },
  {
    name: "--no-profile still applies the profile",
    file: "src/session/profile.ts",
    find: "  if (args.noProfile) return null;\n",
    replace: "",
    tests: ["test/session/profile.test.ts"],
  },
  {
    name: "the status line does not name the profile",
    file: "src/tui/status-line.ts",
    find: "  const where = `${safeTagged(shortModel(facts.model))}${profile}",
    replace: "  const where = `${safeTagged(shortModel(facts.model))}",
    tests: ["test/tui/status-line.test.ts"],
  },
  {
    name: "run_start does not carry the profile",
    file: "src/core/run.ts",
    find: "      ...(this.input.profile !== undefined ? { profile: this.input.profile } : {}),\n",
    replace: "",
    tests: ["test/session/profile.test.ts"],
  },
  {
    name: "tune against a server that does not answer exits 0",
    file: "src/cli/tune.ts",
    find: "    progress.write(`glassbox: ${error.message}\\n`);\n    return 1;",
    replace: "    progress.write(`glassbox: ${error.message}\\n`);\n    return 0;",
    tests: ["test/cli/tune-usage.test.ts"],
  },
];
