export { isLeapYear } from "./leap.js";
export { daysInMonth } from "./month.js";
export { addDays } from "./add.js";
export { pad2, formatDate } from "./format.js";
