import { expect, test } from "bun:test";
import { addDays, daysInMonth, formatDate, isLeapYear } from "../src/index.js";

test("February has 29 days in leap years", () => {
  expect(daysInMonth(2024, 2)).toBe(29);
  expect(daysInMonth(2023, 2)).toBe(28);
  expect(daysInMonth(1900, 2)).toBe(28);
  expect(daysInMonth(2000, 2)).toBe(29);
  expect(daysInMonth(2023, 4)).toBe(30);
});

test("2024 is a leap year", () => {
  expect(isLeapYear(2024)).toBe(true);
});

test("adding days rolls over months and years", () => {
  expect(addDays({ year: 2024, month: 2, day: 27 }, 3)).toEqual({ year: 2024, month: 3, day: 1 });
  expect(addDays({ year: 2023, month: 12, day: 30 }, 5)).toEqual({ year: 2024, month: 1, day: 4 });
});

test("dates print as ISO", () => {
  expect(formatDate({ year: 2024, month: 3, day: 7 })).toBe("2024-03-07");
});
