import { expect, test } from "bun:test";
import { compact, level, meterLine } from "../../src/tui/meters.ts";

test.each([
  [0, 8, "ok"],
  [4, 8, "ok"],
  [5, 8, "near"],
  [6, 8, "near"],
  [7, 8, "over"],
  [8, 8, "over"],
  [9, 8, "over"],
] as const)("%i of %i is %s", (value, limit, expected) => {
  expect(level({ label: "steps", value, limit })).toBe(expected);
});

test("no limit never warns", () => {
  expect(level({ label: "tokens", value: 1e9, limit: null })).toBe("ok");
});

test("a meter line fits its width, and its bar fills in proportion", () => {
  const half = meterLine({ label: "steps", value: 4, limit: 8 }, 30);
  expect(Bun.stringWidth(half)).toBe(30);
  expect(half).toEndWith("4/8");
  const filled = (half.match(/█/g) ?? []).length;
  const empty = (half.match(/░/g) ?? []).length;
  expect(Math.abs(filled - empty)).toBeLessThanOrEqual(1);
  expect(filled + empty).toBe(30 - "steps   ".length - " 4/8".length - 1);
  expect(meterLine({ label: "time", value: 95, limit: 90, unit: "s" }, 30)).not.toContain("░");
  expect(meterLine({ label: "tok/s", value: 41.5, limit: null }, 30)).toBe("tok/s    41.5");
});

test("compact figures", () => {
  expect([compact(999), compact(1234), compact(12_345), compact(1_234_567)]).toEqual(["999", "1.2k", "12k", "1.2M"]);
});

test("a text row is its label and text, never a bar, never a warning colour, cut to the width", () => {
  const row = { label: "cache", value: 0.92, limit: null, text: "92% reused 0.65s · run 3.9s" };
  expect(meterLine(row, 40)).toBe("cache    92% reused 0.65s · run 3.9s");
  expect(meterLine(row, 20)).toBe("cache    92% reused ");
  expect(level({ ...row, value: 0.99, limit: 1 })).toBe("ok");
});
