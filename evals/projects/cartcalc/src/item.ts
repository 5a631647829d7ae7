export interface Item {
  name: string;
  priceCents: number;
  quantity: number;
}

/** One line of the cart: price times quantity, in cents. */
export function lineTotal(item: Item): number {
  return item.priceCents * item.quantity;
}
