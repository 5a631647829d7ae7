import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MUTANTS, mirrorTest, nearTests } from "../../scripts/mutate.ts";

test.each([
  ["src/tools/edit_file.ts", ["test/tools"]],
  ["src/core/checkpoint.ts", ["test/core"]],
  ["src/tui/approval-modal.ts", ["test/tui", "test/e2e"]],
  ["scripts/install.sh", ["test/scripts"]],
  ["src/nowhere/x.ts", []],
])("a mutant in %s runs %p first, then the whole suite if none of them fails", (file, near) => {
  expect(nearTests(file)).toEqual(near);
});

test("a mutant's own test file is tried before its folder's, where one mirrors the mutated file", () => {
  expect(mirrorTest("src/model/openai.ts")).toEqual(["test/model/openai.test.ts"]);
  expect(mirrorTest("src/protocol/model.ts", () => false)).toEqual([]);
  expect(mirrorTest("scripts/install.sh")).toEqual([]);
});

// A guard rewritten elsewhere leaves its mutant pointing at text that is gone: the suite says so
// at once, not only the mutation check after the whole suite has run. Inside a mutant's own suite
// its guard text is gone on purpose: there this test would "catch" every mutant, so it stays out.
test.skipIf(Boolean(process.env.GLASSBOX_MUTANT))("every mutant's guard text occurs exactly once in its file, and every name is its own", () => {
  const root = join(import.meta.dir, "..", "..");
  const misplaced = MUTANTS.filter((mutant) => readFileSync(join(root, mutant.file), "utf8").split(mutant.find).length !== 2).map((mutant) => mutant.name);
  expect(misplaced).toEqual([]);
  expect(new Set(MUTANTS.map((mutant) => mutant.name)).size).toBe(MUTANTS.length);
});
