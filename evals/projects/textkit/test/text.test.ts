import { expect, test } from "bun:test";
import { capitalize, slugify, titleCase, truncate, words, wrap } from "../src/index.ts";

test("words are lower-cased runs of letters", () => {
  expect(words("Hello, World!")).toEqual(["hello", "world"]);
});

test("slugify joins words with hyphens, digits kept", () => {
  expect(slugify("Hello, World!")).toBe("hello-world");
  expect(slugify("Top 10 Tips")).toBe("top-10-tips");
});

test("titleCase capitalizes each word", () => {
  expect(capitalize("fox")).toBe("Fox");
  expect(titleCase("the quick fox")).toBe("The Quick Fox");
});

test("truncate keeps at most max characters", () => {
  expect(truncate("short", 10)).toBe("short");
  expect(truncate("a long sentence", 6)).toBe("a lon…");
  expect(truncate("a long sentence", 6).length).toBe(6);
});

test("wrap breaks at spaces within the width", () => {
  expect(wrap("one two three four", 9)).toEqual(["one two", "three", "four"]);
  expect(wrap("aaa bbb", 7)).toEqual(["aaa bbb"]);
});
