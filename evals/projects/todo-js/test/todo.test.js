import { expect, test } from "bun:test";
import { byPriority, formatItem, parseLine, parseList, pending } from "../src/index.js";

const text = "[x] buy milk !2\n[ ] call mum !1\nnot a todo\n[ ] water plants";

test("a line parses into done, text and priority", () => {
  expect(parseLine("[x] buy milk !2")).toEqual({ done: true, text: "buy milk", priority: 2 });
  expect(parseLine("[ ] water plants")).toEqual({ done: false, text: "water plants", priority: 3 });
  expect(parseLine("nothing")).toBeNull();
});

test("a list keeps the lines that parse", () => {
  expect(parseList(text).map((item) => item.text)).toEqual(["buy milk", "call mum", "water plants"]);
});

test("pending drops done items", () => {
  expect(pending(parseList(text)).map((item) => item.text)).toEqual(["call mum", "water plants"]);
});

test("byPriority puts the most urgent first", () => {
  expect(byPriority(parseList(text)).map((item) => item.priority)).toEqual([1, 2, 3]);
});

test("formatItem writes a line back", () => {
  expect(formatItem({ done: false, text: "call mum", priority: 1 })).toBe("[ ] call mum !1");
  expect(formatItem({ done: true, text: "water plants", priority: 3 })).toBe("[x] water plants");
});
