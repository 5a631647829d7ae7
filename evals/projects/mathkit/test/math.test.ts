import { expect, test } from "bun:test";
import { clamp, mean, median, percent, sum } from "../src/index.ts";

test("sum adds the values", () => {
  expect(sum([])).toBe(0);
});

test("mean divides the total by the count", () => {
  expect(mean([2, 4, 9])).toBe(5);
  expect(mean([1.5, 2.5])).toBe(2);
});

test("median takes the middle", () => {
  expect(median([5, 1, 3])).toBe(3);
  expect(median([4, 1, 3, 2])).toBe(2.5);
});

test("clamp keeps values within bounds", () => {
  expect(clamp(5, 0, 3)).toBe(3);
  expect(clamp(-2, 0, 3)).toBe(0);
  expect(clamp(2, 0, 3)).toBe(2);
});

test("percent rounds to the given digits", () => {
  expect(percent(1, 3)).toBe(33.3);
  expect(percent(1, 8, 2)).toBe(12.5);
});
