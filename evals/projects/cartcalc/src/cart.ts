import { lineTotal, type Item } from "./item.ts";

/** The cart before discounts and tax, in cents. */
export function subtotal(items: Item[]): number {
  return items.reduce((total, item) => total + lineTotal(item), 0);
}
