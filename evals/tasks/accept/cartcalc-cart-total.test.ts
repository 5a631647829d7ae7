import { expect, test } from "bun:test";
import { cartTotal } from "../src/index.ts";

test("cartTotal: subtotal, less the discount, plus tax", () => {
  const items = [
    { name: "pen", priceCents: 150, quantity: 3 },
    { name: "pad", priceCents: 425, quantity: 2 },
  ];
  expect(cartTotal(items, 10, 0.2)).toBe(1404);
  expect(cartTotal(items, 0, 0)).toBe(1300);
  expect(cartTotal([], 50, 0.2)).toBe(0);
});
