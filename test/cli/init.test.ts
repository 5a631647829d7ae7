import { describe, expect, test } from "bun:test";
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/session/config.ts";
import { glassbox, scriptFile } from "../helpers/cli.ts";
import { call } from "../helpers/run.ts";
import { folderWith, tempFolder } from "../helpers/workspace.ts";

const projectWith = (files: Record<string, string>) => folderWith(files, "init");

/** Runs `glassbox init` on the project, then loads what it wrote with the real config loader. */
async function initialised(files: Record<string, string>) {
  const root = projectWith(files);
  const result = await glassbox(["init", "--workspace", root]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const { config } = loadConfig(undefined, root);
  return { root, result, config, argvs: Object.fromEntries(Object.entries(config.checks).map(([name, check]) => [name, check.argv])) };
}

const packageJson = JSON.stringify({ name: "app", scripts: { test: "vitest run", lint: "eslint .", "type-check": "tsc --noEmit", build: "tsc" } });

describe("glassbox init writes the checks a project names", () => {
  test.each([
    ["npm (no lockfile)", {}, "npm", "no bun, pnpm or yarn lockfile → npm"],
    ["bun (bun.lock)", { "bun.lock": "{}" }, "bun", "bun.lock → bun"],
    ["pnpm (pnpm-lock.yaml)", { "pnpm-lock.yaml": "lockfileVersion: '9.0'\n" }, "pnpm", "pnpm-lock.yaml → pnpm"],
    ["yarn (yarn.lock)", { "yarn.lock": "# yarn lockfile v1\n" }, "yarn", "yarn.lock → yarn"],
  ])("a package.json project with %s", async (_name, lockfiles, manager, because) => {
    const { root, result, config, argvs } = await initialised({ "package.json": packageJson, ...lockfiles });
    expect(argvs).toEqual({ tests: [manager, "run", "test"], lint: [manager, "run", "lint"], typecheck: [manager, "run", "type-check"] });
    expect(config.checks.tests!.timeout_seconds).toBe(300);
    expect(config.verify).toBe("tests");
    expect(config.allow).toEqual([]);
    expect(config.edit_checks).toEqual({});
    // Each check printed with where it came from.
    expect(result.stdout).toMatch(new RegExp(`^  tests +${manager} run test +from package\\.json script "test" \\(vitest run\\); ${because.replace(/[.]/g, "\\.")}$`, "m"));
    expect(result.stdout).toMatch(/^  typecheck +\S+ run type-check +from package\.json script "type-check"/m);
    expect(result.stdout).toContain(`wrote ${join(root, "glassbox.json")}`);
    // A rule for one test file is suggested, with how to add it, and not added.
    const exec = { npm: "npx", bun: "bunx", pnpm: "pnpm exec", yarn: "yarn" }[manager]!;
    const rule = `run_command:${exec} vitest run *`;
    expect(result.stdout).toContain(
      [
        "Suggested, not added: let the model run one test file of the suite without asking, in the sandbox, with the rule",
        `  ${rule}`,
        `  add it to glassbox.json as "allow": ["${rule}"], or give it for one run: --allow '${rule}'`,
      ].join("\n"),
    );
    expect(readFileSync(join(root, "glassbox.json"), "utf8")).not.toContain("run_command");
  });

  test("a pytest project: python3 -m pytest -q, and .py edits must compile", async () => {
    const { config, argvs, result } = await initialised({ "pyproject.toml": '[project]\nname = "p"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n', "tests/test_app.py": "def test_ok():\n    assert True\n" });
    expect(argvs).toEqual({ tests: ["python3", "-m", "pytest", "-q"] });
    expect(config.checks.tests!.timeout_seconds).toBe(300);
    expect(config.verify).toBe("tests");
    expect(config.edit_checks[".py"]!.argv).toEqual(["python3", "-m", "py_compile"]);
    expect(result.stdout).toMatch(/^  tests +python3 -m pytest -q +from pytest \(pyproject\.toml configures pytest\)$/m);
    expect(result.stdout).toMatch(/^  edits to \.py +python3 -m py_compile FILE +from Python project/m);
  });

  test("a pytest project with uv.lock: uv run pytest -q", async () => {
    const { argvs } = await initialised({ "pytest.ini": "[pytest]\n", "uv.lock": "version = 1\n" });
    expect(argvs).toEqual({ tests: ["uv", "run", "pytest", "-q"] });
  });

  test("a Cargo crate: cargo test and cargo check", async () => {
    const { config, argvs } = await initialised({ "Cargo.toml": '[package]\nname = "c"\nversion = "0.1.0"\n', "src/main.rs": "fn main() {}\n" });
    expect(argvs).toEqual({ tests: ["cargo", "test", "--quiet"], typecheck: ["cargo", "check", "--quiet"] });
    expect(config.checks.tests!.timeout_seconds).toBe(300);
    expect(config.verify).toBe("tests");
  });

  test("a Go module: go test and go vet", async () => {
    const { config, argvs } = await initialised({ "go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": "package main\n" });
    expect(argvs).toEqual({ tests: ["go", "test", "./..."], vet: ["go", "vet", "./..."] });
    expect(config.checks.tests!.timeout_seconds).toBe(300);
    expect(config.verify).toBe("tests");
  });

  test("a Makefile project: make test", async () => {
    const { config, argvs, result } = await initialised({ Makefile: "CC = cc\n\nall:\n\t$(CC) main.c\n\ntest: all\n\t./run-tests\n" });
    expect(argvs).toEqual({ tests: ["make", "test"] });
    expect(config.checks.tests!.timeout_seconds).toBe(300);
    expect(config.verify).toBe("tests");
    expect(result.stdout).toMatch(/^  tests +make test +from Makefile has a test: target$/m);
  });

  test("nothing to detect: no checks, and how to add one", async () => {
    const { config, result } = await initialised({ "README.md": "notes\n" });
    expect(config.checks).toEqual({});
    expect(config.verify).toBeUndefined();
    expect(result.stdout).toContain("No checks found");
    expect(result.stdout).toContain('"checks": {"tests": {"argv": [');
  });

  test("afterwards: the prompt layers, and the way to pin them", async () => {
    const { result } = await initialised({ "AGENTS.md": "Run the tests before you finish.\n", Makefile: "test:\n\t./t\n" });
    const lines = result.stdout.split("\n");
    const after = lines.slice(lines.findIndex((line) => line.startsWith("wrote ")));
    expect(after.find((line) => /^00-base\s+builtin\s+[0-9a-f]{16}\s+\d+$/.test(line))).toBeDefined();
    expect(after.find((line) => /^AGENTS\.md\s+workspace\s+[0-9a-f]{16}\s+\d+$/.test(line))).toBeDefined();
    expect(after.at(-2)).toContain("glassbox audit --write-lock");
  });
});

describe("an existing glassbox.json", () => {
  const mine = '{ "model": "ollama:mine", "checks": {} }\n';

  test("is never overwritten without --force: exit 2, saying so, the file untouched", async () => {
    const root = projectWith({ "glassbox.json": mine, Makefile: "test:\n\t./t\n" });
    const result = await glassbox(["init", "--workspace", root]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("glassbox.json already exists");
    expect(result.stderr).toContain("--force");
    expect(result.stdout).toBe("");
    expect(readFileSync(join(root, "glassbox.json"), "utf8")).toBe(mine);
    expect(existsSync(join(root, ".glassbox"))).toBe(false);
  });

  test("a link named glassbox.json counts as existing, even a dangling one", async () => {
    const root = projectWith({ Makefile: "test:\n\t./t\n" });
    symlinkSync(join(root, "nowhere.json"), join(root, "glassbox.json"));
    const result = await glassbox(["init", "--workspace", root]);
    expect(result.code).toBe(2);
    expect(existsSync(join(root, "nowhere.json"))).toBe(false);
    // --force replaces the link itself, never the file it points to, and keeps the link.
    expect((await glassbox(["init", "--force", "--workspace", root])).code).toBe(0);
    expect(lstatSync(join(root, "glassbox.json")).isFile()).toBe(true);
    expect(existsSync(join(root, "nowhere.json"))).toBe(false);
    const kept = readdirSync(join(root, ".glassbox")).find((name) => name.startsWith("glassbox.json."))!;
    expect(readlinkSync(join(root, ".glassbox", kept))).toBe(join(root, "nowhere.json"));
  });

  test("--force replaces it and keeps the old one in .glassbox/", async () => {
    const root = projectWith({ "glassbox.json": mine, Makefile: "test:\n\t./t\n" });
    const result = await glassbox(["init", "--force", "--workspace", root]);
    expect(result.code).toBe(0);
    expect(loadConfig(undefined, root).config.checks.tests!.argv).toEqual(["make", "test"]);
    const kept = readdirSync(join(root, ".glassbox")).filter((name) => name.startsWith("glassbox.json."));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(root, ".glassbox", kept[0]!), "utf8")).toBe(mine);
    expect(result.stdout).toContain(`kept the old glassbox.json as .glassbox/${kept[0]}`);
  });

  test("--dry-run prints the file on stdout, writes nothing, and says a write would need --force", async () => {
    const root = projectWith({ "glassbox.json": mine, "go.mod": "module m\n" });
    const result = await glassbox(["init", "--dry-run", "--workspace", root]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      checks: { tests: { argv: ["go", "test", "./..."], timeout_seconds: 300 }, vet: { argv: ["go", "vet", "./..."] } },
      verify: "tests",
    });
    expect(result.stderr).toContain("--dry-run: nothing written");
    expect(result.stderr).toContain("writing it needs --force");
    expect(readFileSync(join(root, "glassbox.json"), "utf8")).toBe(mine);
  });
});

test("--dry-run on a fresh project writes nothing at all", async () => {
  const root = projectWith({ "Cargo.toml": "[package]\n" });
  const result = await glassbox(["init", "--dry-run", "--workspace", root]);
  expect(result.code).toBe(0);
  expect(Object.keys(JSON.parse(result.stdout).checks)).toEqual(["tests", "typecheck"]);
  expect(readdirSync(root)).toEqual(["Cargo.toml"]);
});

test("usage errors: a workspace that is not a folder, an argument", async () => {
  const missing = await glassbox(["init", "--workspace", join(tempFolder("init"), "absent")]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("is not a folder");
  const extra = await glassbox(["init", "somewhere"]);
  expect(extra.code).toBe(2);
  expect(extra.stderr).toContain("--workspace DIR");
});

test("a written check runs as it stands: npm run test without a shell, through run_check", async () => {
  const root = projectWith({ "package.json": JSON.stringify({ name: "t", scripts: { test: "node -e \"console.log('suite ok')\"" } }) });
  expect((await glassbox(["init", "--workspace", root])).code).toBe(0);
  const model = scriptFile([call("run_check", { name: "tests" }), { content: "The tests pass." }]);
  const run = await glassbox(["run", "--json", "--model", model, "--workspace", root, "run the tests"], { timeoutMs: 60_000 });
  const checked = run.events.find((event) => event.kind === "tool_call")!;
  expect(checked).toMatchObject({ tool: "run_check", decision: "allowed" });
  expect(run.events.at(-1)).toMatchObject({ kind: "stop", status: "completed" });
  expect(checked.result).toStartWith("Check tests passed");
  expect(checked.result).toContain("suite ok");
}, 60_000);

test.skipIf(!Bun.which("python3"))("in a pytest project init set up, an edit that breaks a .py file is refused; one that compiles is made", async () => {
  const root = projectWith({ "pytest.ini": "[pytest]\n", "app.py": "def one():\n    return 1\n" });
  expect((await glassbox(["init", "--workspace", root])).code).toBe(0);
  const model = scriptFile([
    call("edit_file", { path: "app.py", old: "def one():", new: "def one(:" }, "bad"),
    call("edit_file", { path: "app.py", old: "return 1", new: "return 2" }, "good"),
    { content: "Edited." },
  ]);
  const run = await glassbox(["run", "--json", "--allow", "edit_file", "--model", model, "--workspace", root, "edit app.py"], { timeoutMs: 60_000 });
  const calls = run.events.filter((event) => event.kind === "tool_call");
  expect(calls.map((event) => event.decision)).toEqual(["refused", "allowed"]);
  expect(calls[0]!.result).toContain("SyntaxError");
  expect(readFileSync(join(root, "app.py"), "utf8")).toBe("def one():\n    return 2\n");
}, 60_000);
