import { expect, test } from "bun:test";
import { countDone, parseList } from "../src/index.js";

test("countDone counts only the done items", () => {
  expect(countDone(parseList("[x] a\n[ ] b\n[x] c"))).toBe(2);
  expect(countDone([])).toBe(0);
});
