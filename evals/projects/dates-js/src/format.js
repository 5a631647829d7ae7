/** 7 reads "07". */
export function pad2(n) {
  return String(n).padStart(2, "0");
}

/** { year: 2024, month: 3, day: 7 } reads "2024-03-07". */
export function formatDate(date) {
  return `${date.year}-${pad2(date.month)}-${pad2(date.day)}`;
}
