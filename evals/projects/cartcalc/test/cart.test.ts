import { expect, test } from "bun:test";
import { addTax, applyDiscount, formatMoney, lineTotal, subtotal } from "../src/index.ts";

const items = [
  { name: "pen", priceCents: 150, quantity: 3 },
  { name: "pad", priceCents: 425, quantity: 2 },
];

test("subtotal adds price times quantity", () => {
  expect(subtotal(items)).toBe(1300);
  expect(subtotal([])).toBe(0);
});

test("a discount takes a share off", () => {
  expect(applyDiscount(1000, 15)).toBe(850);
  expect(applyDiscount(999, 10)).toBe(899);
});

test("tax is added on top", () => {
  expect(addTax(1000, 0.2)).toBe(1200);
});

test("money prints in dollars and cents", () => {
  expect(formatMoney(1234)).toBe("$12.34");
  expect(formatMoney(5)).toBe("$0.05");
  expect(formatMoney(-250)).toBe("-$2.50");
});
