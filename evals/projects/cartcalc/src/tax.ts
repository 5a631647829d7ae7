/** `cents` plus tax at `rate` (0.2 for 20%), rounded to whole cents. */
export function addTax(cents: number, rate: number): number {
  return Math.round(cents * (1 + rate));
}
