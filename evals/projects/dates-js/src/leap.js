/** Gregorian leap years: every 4th, except centuries, except every 4th century. */
export function isLeapYear(year) {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
