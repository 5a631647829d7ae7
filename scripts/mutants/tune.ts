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
];
