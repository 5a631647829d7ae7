import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configFor, configText, detectChecks, snapshotProject } from "../../src/session/detect-checks.ts";
import { ConfigSchema } from "../../src/session/config.ts";
import { parseRule } from "../../src/core/policy.ts";
import { TOOL_NAMES } from "../../src/tools/index.ts";
import { tempFolder } from "../helpers/workspace.ts";

const project = (files: Record<string, string>) => new Map(Object.entries(files));
const scripts = (entries: Record<string, string>, extra: Record<string, unknown> = {}) => JSON.stringify({ name: "p", ...extra, scripts: entries });
/** name → argv, the part of a detection the table checks. */
const argvs = (files: Record<string, string>) => Object.fromEntries(detectChecks(project(files)).checks.map((check) => [check.name, check.argv.join(" ")]));

describe("which checks a project's files name", () => {
  test.each<[string, Record<string, string>, Record<string, string>]>([
    ["package.json, no lockfile: npm", { "package.json": scripts({ test: "jest" }) }, { tests: "npm run test" }],
    ["bun.lock: bun run", { "package.json": scripts({ test: "bun test" }), "bun.lock": "" }, { tests: "bun run test" }],
    ["bun.lockb: bun run", { "package.json": scripts({ test: "bun test" }), "bun.lockb": "" }, { tests: "bun run test" }],
    ["pnpm-lock.yaml: pnpm", { "package.json": scripts({ test: "vitest" }), "pnpm-lock.yaml": "" }, { tests: "pnpm run test" }],
    ["yarn.lock: yarn", { "package.json": scripts({ test: "vitest" }), "yarn.lock": "" }, { tests: "yarn run test" }],
    ["no lockfile, packageManager pnpm@9: pnpm", { "package.json": scripts({ test: "vitest" }, { packageManager: "pnpm@9.1.0" }) }, { tests: "pnpm run test" }],
    ["a lockfile beats packageManager", { "package.json": scripts({ test: "vitest" }, { packageManager: "pnpm@9.1.0" }), "yarn.lock": "" }, { tests: "yarn run test" }],
    ["an unknown packageManager: npm", { "package.json": scripts({ test: "vitest" }, { packageManager: "deno@2" }) }, { tests: "npm run test" }],
    ["test, lint, typecheck", { "package.json": scripts({ test: "t", lint: "l", typecheck: "tc" }) }, { tests: "npm run test", lint: "npm run lint", typecheck: "npm run typecheck" }],
    ["type-check names typecheck", { "package.json": scripts({ "type-check": "tsc" }) }, { typecheck: "npm run type-check" }],
    ["check-types names typecheck", { "package.json": scripts({ "check-types": "tsc" }) }, { typecheck: "npm run check-types" }],
    ["tsc names typecheck", { "package.json": scripts({ tsc: "tsc" }) }, { typecheck: "npm run tsc" }],
    ["typecheck wins over tsc", { "package.json": scripts({ tsc: "tsc -b", typecheck: "tsc --noEmit" }) }, { typecheck: "npm run typecheck" }],
    ["other scripts are not checks", { "package.json": scripts({ build: "tsc", start: "node ." }) }, {}],
    ["npm init's placeholder test is skipped", { "package.json": scripts({ test: 'echo "Error: no test specified" && exit 1', lint: "eslint" }) }, { lint: "npm run lint" }],
    ["an empty script is skipped", { "package.json": scripts({ test: "  " }) }, {}],
    ["a package.json that is not JSON names nothing", { "package.json": "{ nope" }, {}],
    ["pyproject with [tool.pytest.ini_options]", { "pyproject.toml": '[project]\nname = "p"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n' }, { tests: "python3 -m pytest -q" }],
    ["pyproject with pytest as a dependency", { "pyproject.toml": '[project.optional-dependencies]\ntest = ["pytest>=8", "pytest-cov"]\n' }, { tests: "python3 -m pytest -q" }],
    ["poetry's pytest = ...", { "pyproject.toml": '[tool.poetry.group.dev.dependencies]\npytest = "^8.0"\n' }, { tests: "python3 -m pytest -q" }],
    ["pyproject without pytest: nothing", { "pyproject.toml": '[project]\nname = "p"\ndependencies = ["requests"]\n' }, {}],
    ["pytest.ini", { "pytest.ini": "[pytest]\n" }, { tests: "python3 -m pytest -q" }],
    ["setup.cfg with [tool:pytest]", { "setup.cfg": "[metadata]\nname = p\n\n[tool:pytest]\ntestpaths = tests\n" }, { tests: "python3 -m pytest -q" }],
    ["setup.cfg without a pytest section: nothing", { "setup.cfg": "[metadata]\nname = p\n" }, {}],
    ["tox.ini with [pytest]", { "tox.ini": "[tox]\nenvlist = py312\n\n[pytest]\naddopts = -q\n" }, { tests: "python3 -m pytest -q" }],
    ["tests/ of test_*.py", { "tests/test_app.py": "", "tests/conftest.py": "" }, { tests: "python3 -m pytest -q" }],
    ["tests/ without test_*.py: nothing", { "tests/helpers.py": "", "tests/test_data.json": "" }, {}],
    ["uv.lock: uv run pytest", { "pytest.ini": "", "uv.lock": "" }, { tests: "uv run pytest -q" }],
    ["Cargo.toml", { "Cargo.toml": '[package]\nname = "c"\n' }, { tests: "cargo test --quiet", typecheck: "cargo check --quiet" }],
    ["go.mod", { "go.mod": "module example.com/m\n\ngo 1.22\n" }, { tests: "go test ./...", vet: "go vet ./..." }],
    ["Makefile with test:", { Makefile: "build:\n\tcc main.c\n\ntest: build\n\t./run-tests\n" }, { tests: "make test" }],
    ["makefile (lower case) with test:", { makefile: "test:\n\t./t\n" }, { tests: "make test" }],
    ["a test target among others on a line", { Makefile: "check test: build\n\t./t\n" }, { tests: "make test" }],
    ["test := a variable, not a target", { Makefile: "test := yes\nall:\n\techo\n" }, {}],
    ["a .PHONY line is not a target", { Makefile: ".PHONY: test\nall:\n\techo\n" }, {}],
    ["tests: is another target", { Makefile: "tests:\n\t./t\n" }, {}],
    ["a Makefile test: when something else matched: left out", { Makefile: "test:\n\t./t\n", "go.mod": "module m\n" }, { tests: "go test ./...", vet: "go vet ./..." }],
    ["two ecosystems: the second's tests get its own name", { "package.json": scripts({ test: "vitest" }), "pytest.ini": "" }, { tests: "npm run test", "tests-python": "python3 -m pytest -q" }],
    ["typecheck from package.json and Cargo", { "package.json": scripts({ typecheck: "tsc" }), "Cargo.toml": "" }, { typecheck: "npm run typecheck", tests: "cargo test --quiet", "typecheck-cargo": "cargo check --quiet" }],
    ["nothing at all", { "README.md": "hello" }, {}],
  ])("%s", (_name, files, expected) => {
    expect(argvs(files)).toEqual(expected);
  });
});

describe("the run_command rule suggested for one test file of the suite", () => {
  const ruleOf = (files: Record<string, string>) => detectChecks(project(files)).checks.find((check) => check.commandRule)?.commandRule ?? null;
  test.each<[string, Record<string, string>, string | null]>([
    ["vitest, npm", { "package.json": scripts({ test: "vitest" }) }, "run_command:npx vitest run *"],
    ["vitest run, pnpm", { "package.json": scripts({ test: "vitest run --coverage" }), "pnpm-lock.yaml": "" }, "run_command:pnpm exec vitest run *"],
    ["jest, yarn", { "package.json": scripts({ test: "jest --ci" }), "yarn.lock": "" }, "run_command:yarn jest *"],
    ["mocha, bun lockfile", { "package.json": scripts({ test: "mocha" }), "bun.lock": "" }, "run_command:bunx mocha *"],
    ["playwright", { "package.json": scripts({ test: "playwright test" }) }, "run_command:npx playwright test *"],
    ["bun test", { "package.json": scripts({ test: "bun test" }), "bun.lock": "" }, "run_command:bun test *"],
    ["node --test", { "package.json": scripts({ test: "node --test test/" }) }, "run_command:node --test *"],
    ["a runner it does not know: the script with arguments", { "package.json": scripts({ test: "./scripts/test.sh" }) }, "run_command:npm run test *"],
    ["vitest named later in the script is not the runner", { "package.json": scripts({ test: "tsc && vitest" }) }, "run_command:npm run test *"],
    ["pytest", { "pytest.ini": "" }, "run_command:python3 -m pytest *"],
    ["pytest with uv", { "pytest.ini": "", "uv.lock": "" }, "run_command:uv run pytest *"],
    ["cargo", { "Cargo.toml": "" }, "run_command:cargo test *"],
    ["go", { "go.mod": "module m\n" }, "run_command:go test *"],
    ["make test takes no file: none", { Makefile: "test:\n\t./t\n" }, null],
    ["no tests, only lint: none", { "package.json": scripts({ lint: "eslint ." }) }, null],
  ])("%s", (_name, files, rule) => {
    expect(ruleOf(files)).toBe(rule);
  });

  test("every suggestion parses as a rule and matches a run of one test file", () => {
    const rule = parseRule(ruleOf({ "package.json": scripts({ test: "vitest" }) })!, TOOL_NAMES);
    expect(rule.glob!.match("npx vitest run test/deep/a.test.ts")).toBe(true);
  });

  test("the suggestion never reaches the file init writes", () => {
    const text = configText(configFor(detectChecks(project({ "package.json": scripts({ test: "vitest" }) }))));
    expect(text).not.toContain("run_command");
  });
});

describe("the rest of a detection", () => {
  test("test checks get 300 seconds; lint, typecheck and vet keep the check default", () => {
    const { checks } = detectChecks(project({ "package.json": scripts({ test: "t", lint: "l" }), "go.mod": "" }));
    expect(Object.fromEntries(checks.map((check) => [check.name, check.timeout_seconds]))).toEqual({ tests: 300, lint: undefined, "tests-go": 300, vet: undefined });
  });

  test("verify is tests when there is one, else nothing", () => {
    expect(detectChecks(project({ "Cargo.toml": "" })).verify).toBe("tests");
    expect(detectChecks(project({ "package.json": scripts({ lint: "eslint" }) })).verify).toBeNull();
    expect(detectChecks(project({})).verify).toBeNull();
  });

  test("a Python project gets the py_compile edit check; others none", () => {
    expect(detectChecks(project({ "pytest.ini": "" })).editChecks).toEqual([expect.objectContaining({ extension: ".py", argv: ["python3", "-m", "py_compile"] })]);
    expect(detectChecks(project({ "package.json": scripts({ test: "t" }) })).editChecks).toEqual([]);
  });

  test("each check says where it came from", () => {
    const sources = detectChecks(project({ "package.json": scripts({ test: "vitest run" }), "pnpm-lock.yaml": "", "tests/test_a.py": "", "uv.lock": "" })).checks.map((check) => check.source);
    expect(sources).toEqual(['package.json script "test" (vitest run); pnpm-lock.yaml → pnpm', "pytest (tests/ holds test_*.py files); uv.lock → uv run"]);
  });

  test("what was left out is said: a placeholder test script, a package.json that is not JSON", () => {
    expect(detectChecks(project({ "package.json": scripts({ test: 'echo "Error: no test specified" && exit 1' }) })).notes).toEqual([
      'package.json script "test" is npm\'s placeholder (echo "Error: no test specified" && exit 1): skipped',
    ]);
    expect(detectChecks(project({ "package.json": "null" })).notes[0]).toStartWith("package.json is not a JSON object");
  });
});

describe("the file it becomes", () => {
  test("loads with the real ConfigSchema: the checks, verify, the edit checks, nothing allowed", () => {
    const detection = detectChecks(project({ "package.json": scripts({ test: "t", lint: "l" }), "pytest.ini": "" }));
    const text = configText(configFor(detection));
    const config = ConfigSchema.parse(JSON.parse(text));
    expect(config.checks).toEqual({
      tests: { argv: ["npm", "run", "test"], timeout_seconds: 300, env: [] },
      lint: { argv: ["npm", "run", "lint"], timeout_seconds: 60, env: [] },
      "tests-python": { argv: ["python3", "-m", "pytest", "-q"], timeout_seconds: 300, env: [] },
    });
    expect(config.verify).toBe("tests");
    expect(config.edit_checks).toEqual({ ".py": { argv: ["python3", "-m", "py_compile"], timeout_seconds: 60, env: [] } });
    expect(config.allow).toEqual([]);
  });

  test("nothing detected: no checks and no verify, still a valid config", () => {
    const text = configText(configFor(detectChecks(project({}))));
    expect(JSON.parse(text)).toEqual({ checks: {} });
    expect(ConfigSchema.parse(JSON.parse(text)).verify).toBeUndefined();
  });

  test("each argv on one line, as a person writes it", () => {
    const text = configText(configFor(detectChecks(project({ "go.mod": "" }))));
    expect(text).toContain('"argv": ["go", "test", "./..."],');
    expect(text).toContain('"argv": ["go", "vet", "./..."]\n');
    expect(text.endsWith("}\n")).toBe(true);
  });

  test("the one-line lists survive strings with commas, quotes and brackets", () => {
    const config = { a: ["x, y", 'q"]', "\\"], b: [], c: { d: ["e"] } };
    expect(JSON.parse(configText(config))).toEqual(config);
  });
});

describe("the snapshot of a folder on disk", () => {
  test("reads the files detection needs, notes the lockfiles, lists tests/ one level deep", () => {
    const root = tempFolder("detect");
    writeFileSync(join(root, "package.json"), scripts({ test: "t" }));
    writeFileSync(join(root, "yarn.lock"), "# yarn lockfile v1\n");
    mkdirSync(join(root, "tests", "deeper"), { recursive: true });
    writeFileSync(join(root, "tests", "test_one.py"), "");
    writeFileSync(join(root, "tests", "deeper", "test_two.py"), "");
    mkdirSync(join(root, "Makefile"));
    const snapshot = snapshotProject(root);
    expect([...snapshot.keys()].sort()).toEqual(["package.json", "tests/test_one.py", "yarn.lock"]);
    expect(snapshot.get("yarn.lock")).toBe("");
    expect(snapshot.get("package.json")).toBe(scripts({ test: "t" }));
  });
});
