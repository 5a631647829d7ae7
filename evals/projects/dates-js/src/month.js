import { isLeapYear } from "./leap.js";

const LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in `month` (1-12) of `year`. */
export function daysInMonth(year, month) {
  return month === 2 && isLeapYear(year) ? 29 : LENGTHS[month - 1];
}
