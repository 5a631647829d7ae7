import { expect, test } from "bun:test";
import { countWords } from "../src/index.ts";

test("countWords counts words as words() sees them", () => {
  expect(countWords("")).toBe(0);
  expect(countWords("one, two; three")).toBe(3);
  expect(countWords("  spaced   out  ")).toBe(2);
});
