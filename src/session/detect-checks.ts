import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * What `glassbox init` finds in a project: the checks its own files name (package.json scripts,
 * pytest, Cargo, Go, a Makefile's test target), each with where it came from. detectChecks is
 * pure: it reads a snapshot of the project's files, so every rule is tested by example.
 */

/**
 * The project as detection sees it: path (relative, `/`-separated) → text for the READ_FILES
 * that exist, → "" for the PRESENCE_FILES that exist and for each file directly in `tests/`.
 */
export type ProjectSnapshot = ReadonlyMap<string, string>;

/** Files whose text detection reads. */
const READ_FILES = ["package.json", "pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini", "Cargo.toml", "go.mod", "GNUmakefile", "makefile", "Makefile"];
/** Files that only need to exist (lockfiles): their text is not read. */
const PRESENCE_FILES = ["bun.lock", "bun.lockb", "pnpm-lock.yaml", "yarn.lock", "uv.lock"];

/** The snapshot detectChecks reads, taken from a project folder on disk. */
export function snapshotProject(root: string): ProjectSnapshot {
  const files = new Map<string, string>();
  for (const file of READ_FILES) {
    try {
      files.set(file, readFileSync(join(root, file), "utf8"));
    } catch {
      // Not there (or not a readable file): nothing to detect from it.
    }
  }
  for (const file of PRESENCE_FILES) if (existsSync(join(root, file))) files.set(file, "");
  try {
    for (const entry of readdirSync(join(root, "tests"), { withFileTypes: true })) if (entry.isFile()) files.set(`tests/${entry.name}`, "");
  } catch {
    // No tests/ folder.
  }
  return files;
}

export interface DetectedCheck {
  name: string;
  argv: string[];
  /** Set for test runs, which take longer than the check default. */
  timeout_seconds?: number;
  /** Where it came from, for the person: `package.json script "test" (vitest run); pnpm-lock.yaml → pnpm`. */
  source: string;
  /**
   * For a test suite: the run_command rule init suggests (never adds) so the model can run one
   * test file of it without asking: `run_command:npx vitest run *`.
   */
  commandRule?: string;
}

export interface DetectedEditCheck {
  extension: string;
  argv: string[];
  source: string;
}

export interface Detection {
  checks: DetectedCheck[];
  editChecks: DetectedEditCheck[];
  /** The check `finish` waits for: `tests` when there is one. */
  verify: string | null;
  /** What was looked at and left out, and why (a placeholder test script, an unreadable package.json). */
  notes: string[];
}

/** A test suite gets five minutes: a real project's tests outlast the one-minute check default. */
export const TEST_TIMEOUT_SECONDS = 300;

export function detectChecks(files: ProjectSnapshot): Detection {
  const notes: string[] = [];
  const pytest = python(files);
  const found = [...packageScripts(files, notes), ...pytest.checks, ...cargo(files), ...goModule(files)];
  if (found.length === 0) found.push(...makeTest(files));
  const checks: DetectedCheck[] = [];
  for (const check of found) {
    // A second ecosystem's "tests" (a JS front end beside a Python back end) keeps its own name.
    const name = checks.some((taken) => taken.name === check.name) ? `${check.name}-${ecosystem(check.argv)}` : check.name;
    checks.push({ ...check, name });
  }
  return { checks, editChecks: pytest.editChecks, verify: checks.some((check) => check.name === "tests") ? "tests" : null, notes };
}

function ecosystem(argv: string[]): string {
  return argv[0] === "python3" || argv[0] === "uv" ? "python" : argv[0]!;
}

/** package.json scripts, in the order a person reads them: tests, lint, typecheck. */
const SCRIPT_CHECKS: Array<{ check: string; scripts: string[] }> = [
  { check: "tests", scripts: ["test"] },
  { check: "lint", scripts: ["lint"] },
  { check: "typecheck", scripts: ["typecheck", "type-check", "check-types", "tsc"] },
];

/** Lockfile → the package manager that wrote it, first match wins. */
const LOCKFILES: Array<[string, string]> = [
  ["bun.lock", "bun"],
  ["bun.lockb", "bun"],
  ["pnpm-lock.yaml", "pnpm"],
  ["yarn.lock", "yarn"],
];

const MANAGERS = ["bun", "pnpm", "yarn", "npm"];

/** `npm init` writes this placeholder test script; it only ever fails. */
const NPM_PLACEHOLDER = /no test specified/;

function packageScripts(files: ProjectSnapshot, notes: string[]): DetectedCheck[] {
  const text = files.get("package.json");
  if (text === undefined) return [];
  let manifest: { scripts?: unknown; packageManager?: unknown };
  try {
    manifest = JSON.parse(text);
    if (!manifest || typeof manifest !== "object") throw new Error("not an object");
  } catch (error) {
    notes.push(`package.json is not a JSON object (${(error as Error).message}): its scripts were not read`);
    return [];
  }
  const scripts = manifest.scripts && typeof manifest.scripts === "object" ? (manifest.scripts as Record<string, unknown>) : {};
  const { manager, because } = packageManager(files, manifest.packageManager);
  const found: DetectedCheck[] = [];
  for (const { check, scripts: names } of SCRIPT_CHECKS) {
    const script = names.find((name) => typeof scripts[name] === "string" && (scripts[name] as string).trim() !== "");
    if (!script) continue;
    const body = (scripts[script] as string).trim();
    if (check === "tests" && NPM_PLACEHOLDER.test(body)) {
      notes.push(`package.json script "test" is npm's placeholder (${body}): skipped`);
      continue;
    }
    found.push({
      name: check,
      argv: [manager, "run", script],
      ...(check === "tests" ? { timeout_seconds: TEST_TIMEOUT_SECONDS, commandRule: testFileRule(body, manager, script) } : {}),
      source: `package.json script "${script}" (${body}); ${because}`,
    });
  }
  return found;
}

/** How each package manager runs a package's own binary. */
const EXEC: Record<string, string> = { npm: "npx", pnpm: "pnpm exec", yarn: "yarn", bun: "bunx" };

/** Test runners that take test files as arguments, as the script starts them → how to run some of their files. */
const JS_RUNNERS: Array<{ starts: RegExp; files: (exec: string) => string }> = [
  { starts: /^vitest\b/, files: (exec) => `${exec} vitest run *` },
  { starts: /^jest\b/, files: (exec) => `${exec} jest *` },
  { starts: /^mocha\b/, files: (exec) => `${exec} mocha *` },
  { starts: /^playwright test\b/, files: (exec) => `${exec} playwright test *` },
  { starts: /^bun test\b/, files: () => "bun test *" },
  { starts: /^node --test\b/, files: () => "node --test *" },
];

/** The rule for one test file of a package.json test script: its runner's own command when known, else the script with arguments. */
function testFileRule(body: string, manager: string, script: string): string {
  const runner = JS_RUNNERS.find(({ starts }) => starts.test(body));
  return `run_command:${runner ? runner.files(EXEC[manager]!) : `${manager} run ${script} *`}`;
}

/**
 * The lockfile decides; without one, package.json's `packageManager` field (Corepack's
 * convention, `pnpm@9.1.0`) does; else npm.
 */
function packageManager(files: ProjectSnapshot, declared: unknown): { manager: string; because: string } {
  const lock = LOCKFILES.find(([file]) => files.has(file));
  if (lock) return { manager: lock[1], because: `${lock[0]} → ${lock[1]}` };
  const name = typeof declared === "string" ? declared.split("@")[0]! : "";
  if (MANAGERS.includes(name)) return { manager: name, because: `package.json packageManager "${declared}" → ${name}` };
  return { manager: "npm", because: "no bun, pnpm or yarn lockfile → npm" };
}

/** `[tool.pytest.ini_options]` (or `[tool.pytest]`), or pytest among the dependencies. */
const PYPROJECT_PYTEST = [/^\[tool\.pytest(\.ini_options)?\]/m, /["']pytest\b/, /^pytest\s*=/m];
/** setup.cfg's `[tool:pytest]`, tox.ini's `[pytest]`; either is accepted in either file. */
const INI_PYTEST = /^\[(tool:)?pytest\]/m;

function python(files: ProjectSnapshot): { checks: DetectedCheck[]; editChecks: DetectedEditCheck[] } {
  const reason = pytestReason(files);
  if (!reason) return { checks: [], editChecks: [] };
  const uv = files.has("uv.lock");
  return {
    checks: [
      {
        name: "tests",
        argv: uv ? ["uv", "run", "pytest", "-q"] : ["python3", "-m", "pytest", "-q"],
        timeout_seconds: TEST_TIMEOUT_SECONDS,
        commandRule: uv ? "run_command:uv run pytest *" : "run_command:python3 -m pytest *",
        source: `pytest (${reason})${uv ? "; uv.lock → uv run" : ""}`,
      },
    ],
    // The reference harness's guarded edit: a .py file that does not compile is never written.
    editChecks: [{ extension: ".py", argv: ["python3", "-m", "py_compile"], source: `Python project (${reason}): an edited .py file must compile` }],
  };
}

function pytestReason(files: ProjectSnapshot): string | null {
  const pyproject = files.get("pyproject.toml");
  if (pyproject !== undefined && PYPROJECT_PYTEST.some((pattern) => pattern.test(pyproject))) return "pyproject.toml configures pytest";
  if (files.has("pytest.ini")) return "pytest.ini";
  for (const file of ["setup.cfg", "tox.ini"]) {
    if (INI_PYTEST.test(files.get(file) ?? "")) return `${file} has a pytest section`;
  }
  if ([...files.keys()].some((path) => /^tests\/test_[^/]*\.py$/.test(path))) return "tests/ holds test_*.py files";
  return null;
}

function cargo(files: ProjectSnapshot): DetectedCheck[] {
  if (!files.has("Cargo.toml")) return [];
  return [
    { name: "tests", argv: ["cargo", "test", "--quiet"], timeout_seconds: TEST_TIMEOUT_SECONDS, source: "Cargo.toml", commandRule: "run_command:cargo test *" },
    { name: "typecheck", argv: ["cargo", "check", "--quiet"], source: "Cargo.toml" },
  ];
}

function goModule(files: ProjectSnapshot): DetectedCheck[] {
  if (!files.has("go.mod")) return [];
  return [
    { name: "tests", argv: ["go", "test", "./..."], timeout_seconds: TEST_TIMEOUT_SECONDS, source: "go.mod", commandRule: "run_command:go test *" },
    { name: "vet", argv: ["go", "vet", "./..."], source: "go.mod" },
  ];
}

/** A rule line whose targets include `test` (`test:`, `check test: deps`), not `test := value`. */
const MAKE_TEST_TARGET = /^(?:[^\s:#=][^:#=]*\s+)?test(?:\s+[^:#=]+)?\s*::?(?!=)/m;

function makeTest(files: ProjectSnapshot): DetectedCheck[] {
  const makefile = ["GNUmakefile", "makefile", "Makefile"].find((file) => files.has(file));
  if (!makefile || !MAKE_TEST_TARGET.test(files.get(makefile)!)) return [];
  return [{ name: "tests", argv: ["make", "test"], timeout_seconds: TEST_TIMEOUT_SECONDS, source: `${makefile} has a test: target` }];
}

/** The glassbox.json init writes: the checks, verify, the edit checks; nothing allowed. */
export function configFor(detection: Detection): Record<string, unknown> {
  const config: Record<string, unknown> = {
    checks: Object.fromEntries(detection.checks.map(({ name, argv, timeout_seconds }) => [name, timeout_seconds === undefined ? { argv } : { argv, timeout_seconds }])),
  };
  if (detection.verify) config.verify = detection.verify;
  if (detection.editChecks.length) config.edit_checks = Object.fromEntries(detection.editChecks.map(({ extension, argv }) => [extension, { argv }]));
  return config;
}

/** JSON with two-space indents and each list of strings (an argv) on one line, as a person writes it. */
export function configText(config: Record<string, unknown>): string {
  const string = String.raw`"(?:[^"\\\n]|\\.)*"`;
  const list = new RegExp(String.raw`\[\n\s*(${string}(?:,\n\s*${string})*)\n\s*\]`, "g");
  return JSON.stringify(config, null, 2).replace(list, (_, items: string) => `[${items.split(/,\n\s*/).join(", ")}]`) + "\n";
}
