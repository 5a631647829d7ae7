import { expect, test } from "bun:test";
import { mcnemarExact } from "../../src/eval/mcnemar.ts";

test.each([
  [8, 0, 0.0078125],
  [0, 8, 0.0078125],
  [5, 3, 0.7265625],
  [3, 5, 0.7265625],
  [0, 0, 1],
  [1, 0, 1],
  [10, 2, 0.0385742],
  [20, 20, 1],
])("only-A %i, only-B %i: p = %d", (onlyA, onlyB, p) => {
  expect(mcnemarExact(onlyA, onlyB)).toBeCloseTo(p, 6);
});

test("the issue's two reference tables", () => {
  expect(mcnemarExact(8, 0)).toBeCloseTo(0.008, 3);
  expect(mcnemarExact(5, 3)).toBeCloseTo(0.73, 2);
});
