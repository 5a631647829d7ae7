import { expect, test } from "bun:test";
import { join } from "node:path";
import { MUTANTS, candidateTests, declarationErrors, failingFiles, hungIn, parseArguments, slowest, type Mutant } from "../../scripts/mutate.ts";
import { folderWith } from "../helpers/workspace.ts";

const ROOT = join(import.meta.dir, "..", "..");

// A guard rewritten elsewhere leaves its mutant pointing at text that is gone, and a test file
// renamed leaves it naming nothing: the suite says so at once, not only the mutation check after
// the whole suite has run. Inside a mutant's own suite its guard text is gone on purpose: there
// this test would "catch" every mutant, so it stays out.
test.skipIf(Boolean(process.env.GLASSBOX_MUTANT))("every mutant's guard text occurs once in its file, its name is its own, and it names test files that exist", () => {
  expect(declarationErrors(MUTANTS, ROOT)).toEqual([]);
});

test("a mutant that names no tests, names one that is not there, repeats a name or lost its guard is an error", () => {
  const root = folderWith({ "src/a.ts": "if (x) throw y;\nif (x) throw y;\n", "src/b.ts": "guard();\n", "test/b.test.ts": "" });
  const mutant = (over: Partial<Mutant>): Mutant => ({ name: "m", file: "src/b.ts", find: "guard();", replace: "", tests: ["test/b.test.ts"], ...over });
  expect(declarationErrors([mutant({})], root)).toEqual([]);
  expect(declarationErrors([mutant({ tests: [] })], root)).toEqual([`mutant "m": names no test files (tests: [...]); \`bun scripts/mutate.ts --find-tests "m"\` finds them`]);
  expect(declarationErrors([mutant({ tests: ["test/gone.test.ts"] })], root)).toEqual(['mutant "m": its test file test/gone.test.ts does not exist']);
  expect(declarationErrors([mutant({}), mutant({})], root)).toEqual(['mutant "m": the name is used twice']);
  expect(declarationErrors([mutant({ file: "src/a.ts", find: "if (x) throw y;" })], root)).toEqual(['mutant "m": its guard text occurs 2 times in src/a.ts']);
  expect(declarationErrors([mutant({ file: "src/nowhere.ts" })], root)).toEqual(['mutant "m": its guard text occurs 0 times in src/nowhere.ts']);
});

test("the failing test files are the headers the (fail) lines fall under", () => {
  const output = [
    "test/core/a.test.ts:",
    "(pass) one [1.00ms]",
    "",
    "test/core/b.test.ts:",
    "(pass) two",
    "(fail) three [2.00ms]",
    "test/tools/c.test.ts:",
    "# Unhandled error between tests",
    "test/tools/d.test.ts:",
    "(pass) four",
  ].join("\n");
  expect(failingFiles(output)).toEqual(["test/core/b.test.ts", "test/tools/c.test.ts"]);
  expect(failingFiles("test/core/a.test.ts:\n(pass) one\n")).toEqual([]);
  // A suite that hung is caught by the file it hung in, where nothing failed before.
  expect(hungIn("test/core/a.test.ts:\n(pass) one\ntest/e2e/b.test.ts:\n")).toEqual(["test/e2e/b.test.ts"]);
  expect(hungIn(output)).toEqual(["test/core/b.test.ts", "test/tools/c.test.ts"]);
});

test("--find-tests tries a new mutant's own test file, its folder's, its namesakes elsewhere, then (for the TUI) e2e; never the whole suite", () => {
  const exists = (path: string) => ["test/model/openai.test.ts", "test/model", "test/tui", "test/scripts", "test/files"].some((known) => path.endsWith(known));
  const tests = () => ["test/cli/restore.test.ts", "test/e2e/restore-screen.test.ts", "test/files/restore.test.ts", "test/model/openai.test.ts", "test/cli/run.test.ts"];
  expect(candidateTests("src/model/openai.ts", exists, tests)).toEqual([["test/model/openai.test.ts"], ["test/model"]]);
  expect(candidateTests("src/files/restore.ts", exists, tests)).toEqual([["test/files"], ["test/cli/restore.test.ts", "test/e2e/restore-screen.test.ts"]]);
  expect(candidateTests("src/tui/approval-modal.ts", exists, tests)).toEqual([["test/tui"], ["test/e2e"]]);
  expect(candidateTests("scripts/install.sh", exists, tests)).toEqual([["test/scripts"]]);
  expect(candidateTests("src/nowhere/x.ts", exists, tests)).toEqual([]);
});

test("arguments: names, --after-tests, --find-tests and --jobs, at most two jobs by default", () => {
  expect(parseArguments(["a", "--after-tests", "b"], 8)).toEqual({ names: ["a", "b"], afterTests: true, findTests: false, jobs: 2 });
  expect(parseArguments(["--find-tests", "--jobs", "3"], 1)).toEqual({ names: [], afterTests: false, findTests: true, jobs: 3 });
  expect(parseArguments([], 1).jobs).toBe(1);
  expect(() => parseArguments(["--jobs", "none"], 2)).toThrow("--jobs takes a whole number of at least 1");
});

test("the ten slowest mutants are printed, slowest first, with the total", () => {
  const timings = Array.from({ length: 12 }, (_, index) => ({ name: `m${index}`, seconds: index + 0.5 }));
  const lines = slowest(timings);
  expect(lines[0]).toBe("the 10 slowest mutants (of 12, 72 s of mutant time in all):");
  expect(lines.slice(1).map((line) => line.trim())).toEqual(Array.from({ length: 10 }, (_, index) => `${(11 - index + 0.5).toFixed(1)}s  m${11 - index}`));
});
