import { expect, test } from "bun:test";
import { compareVersions, latest, parseVersion, sortVersions } from "../src/version.ts";

test("equal versions compare as 0", () => {
  expect(compareVersions("1.2.3", "1.2.3")).toBe(0);
  expect(compareVersions("v2.0.0", "2.0.0")).toBe(0);
});

test("parts are numbers", () => {
  expect(parseVersion("1.10.0")).toEqual([1, 10, 0]);
});

test("1.10.0 is newer than 1.9.2", () => {
  expect(compareVersions("1.10.0", "1.9.2")).toBe(1);
});

test("sorts oldest first", () => {
  expect(sortVersions(["1.10.0", "1.2.0", "1.9.2"])).toEqual(["1.2.0", "1.9.2", "1.10.0"]);
  expect(latest(["0.9.0", "0.10.1", "0.2.5"])).toBe("0.10.1");
});
