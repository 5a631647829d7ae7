import { expect, test } from "bun:test";
import { countByLevel, errors, parseLine, parseLog, since } from "../src/index.ts";

const text = "2026-11-01T10:00:00Z INFO started\n2026-11-01T10:01:00Z ERROR disk full\n\n2026-11-01T10:02:00Z INFO  retried ok";

test("a line parses into time, level and message", () => {
  expect(parseLine("2026-11-01T10:00:00Z INFO started")).toEqual({ time: "2026-11-01T10:00:00Z", level: "INFO", message: "started" });
  expect(parseLine("garbage")).toBeNull();
});

test("a log keeps the lines that parse", () => {
  expect(parseLog(text)).toHaveLength(3);
});

test("levels are counted", () => {
  expect(countByLevel(parseLog(text))).toEqual({ INFO: 2, ERROR: 1 });
});

test("errors and since filter entries", () => {
  expect(errors(parseLog(text)).map((entry) => entry.message)).toEqual(["disk full"]);
  expect(since(parseLog(text), "2026-11-01T10:01:00Z")).toHaveLength(2);
});
