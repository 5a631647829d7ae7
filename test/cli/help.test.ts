import { expect, test } from "bun:test";
import { COMMANDS } from "../../src/cli/args.ts";
import { glassbox } from "../helpers/cli.ts";

test.each([...COMMANDS])("glassbox %s --help prints that command's usage and exits 0", async (command) => {
  const result = await glassbox([command, "--help"]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toStartWith(`Usage:\n  glassbox ${command}`);
});

test("--help wins over missing or extra arguments: compare without its folders, init with one", async () => {
  for (const argv of [["compare", "--help"], ["compare", "a", "b", "c", "-h"], ["init", "somewhere", "--help"]]) {
    const result = await glassbox(argv);
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith(`Usage:\n  glassbox ${argv[0]}`);
  }
});

test("run --help also lists the shared options and the exit codes", async () => {
  const result = await glassbox(["run", "--help"]);
  expect(result.stdout).toContain("--limit NAME=VALUE");
  expect(result.stdout).toContain("Exit codes of run");
});

test("glassbox --help lists every command of the contract, the new ones included", async () => {
  const result = await glassbox(["--help"]);
  expect(result.code).toBe(0);
  const usage = result.stdout.split("\n").filter((line) => line.startsWith("  glassbox "));
  for (const command of COMMANDS) expect(usage.some((line) => line.startsWith(`  glassbox ${command} `))).toBe(true);
  for (const line of [
    "  glassbox --continue | --session ID",
    "  glassbox init [--workspace DIR] [--dry-run] [--force]",
    "  glassbox sessions [--workspace DIR]",
    "  glassbox undo [--run RUN_ID] [--dry-run] [--force]",
    "  glassbox mcp list | trust NAME | forget NAME",
    "  glassbox report RESULTS... --out report.html",
  ]) {
    expect(usage).toContain(line);
  }
  expect(result.stdout).toMatch(/^  --continue /m);
  expect(result.stdout).toMatch(/^  --session ID /m);
});
