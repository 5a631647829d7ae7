export { lineTotal, type Item } from "./item.ts";
export { subtotal } from "./cart.ts";
export { applyDiscount } from "./discount.ts";
export { addTax } from "./tax.ts";
export { formatMoney } from "./money.ts";
