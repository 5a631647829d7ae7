/** `cents` less `percent` per cent, rounded to whole cents. */
export function applyDiscount(cents: number, percent: number): number {
  return Math.round(cents * (1 - percent / 100));
}
