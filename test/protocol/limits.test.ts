import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_LIMITS, LIMIT_NAMES, resolveLimits } from "../../src/protocol/limits.ts";

/** The "Default limits" table of docs/contract.md, as name → number, and the sub-runs' own (named under "Sub-runs"). */
function contractDefaults(): Record<string, number> {
  const contract = readFileSync(join(import.meta.dir, "..", "..", "docs", "contract.md"), "utf8");
  const section = contract.slice(contract.indexOf("## Default limits"));
  const table = section.slice(0, section.indexOf("\n\n", section.indexOf("| ---")));
  const rows = [...table.matchAll(/^\| `([a-z_]+)`[^|]*\| (\d+)/gm)];
  const subRuns = /`limits\.(max_sub_run_steps)`\s+\(default (\d+)\)/.exec(contract);
  return Object.fromEntries([...rows.map(([, name, value]) => [name!, Number(value)]), ...(subRuns ? [[subRuns[1]!, Number(subRuns[2])]] : [])]);
}

test("the defaults are the contract's table, every limit named there", () => {
  const documented = contractDefaults();
  expect(Object.keys(documented).sort()).toEqual([...LIMIT_NAMES].sort());
  expect(DEFAULT_LIMITS).toEqual(documented as typeof DEFAULT_LIMITS);
});

test("overrides apply in order, later ones winning, and leave the rest at the defaults", () => {
  expect(resolveLimits({ max_steps: 3, max_repeat: 4 }, { max_steps: 5 })).toEqual({ ...DEFAULT_LIMITS, max_steps: 5, max_repeat: 4 });
  expect(resolveLimits()).toEqual(DEFAULT_LIMITS);
});
