import { expect, test } from "bun:test";
import { spread } from "../src/index.ts";

test("spread is the largest value minus the smallest", () => {
  expect(spread([3, 9, 4])).toBe(6);
  expect(spread([5])).toBe(0);
  expect(spread([-2, 7, 1])).toBe(9);
});
