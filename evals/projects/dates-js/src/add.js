import { daysInMonth } from "./month.js";

/** The date `days` days after { year, month, day } (days >= 0). */
export function addDays(date, days) {
  let { year, month, day } = date;
  day += days;
  while (day > daysInMonth(year, month)) {
    day -= daysInMonth(year, month);
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
  }
  return { year, month, day };
}
