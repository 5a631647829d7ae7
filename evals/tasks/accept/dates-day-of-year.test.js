import { expect, test } from "bun:test";
import { dayOfYear } from "../src/index.js";

test("dayOfYear: 1 on January 1st, 365 or 366 on December 31st", () => {
  expect(dayOfYear({ year: 2023, month: 1, day: 1 })).toBe(1);
  expect(dayOfYear({ year: 2023, month: 12, day: 31 })).toBe(365);
  expect(dayOfYear({ year: 2024, month: 12, day: 31 })).toBe(366);
  expect(dayOfYear({ year: 2024, month: 3, day: 1 })).toBe(61);
});
