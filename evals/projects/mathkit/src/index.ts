export { sum } from "./sum.ts";
export { mean, median } from "./stats.ts";
export { clamp } from "./clamp.ts";
export { percent } from "./percent.ts";
