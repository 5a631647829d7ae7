import { expect, test } from "bun:test";
import { levels, parseLog } from "../src/index.ts";

test("levels: distinct and sorted", () => {
  const text = "t1 WARN a\nt2 INFO b\nt3 ERROR c\nt4 INFO d";
  expect(levels(parseLog(text))).toEqual(["ERROR", "INFO", "WARN"]);
  expect(levels([])).toEqual([]);
});
