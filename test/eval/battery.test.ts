// tune's packed battery (src/eval/battery.json.gz) is exactly the battery's files in evals/:
// editing a battery task or its project without `bun scripts/pack-battery.ts` fails here.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { batteryFilesIn, packedBattery, unpackBattery } from "../../src/eval/battery.ts";
import { loadTasks } from "../../src/eval/task.ts";
import { BATTERY, QUICK_BATTERY } from "../../src/eval/tune.ts";
import { tempFolder } from "../helpers/workspace.ts";

const EVALS = join(import.meta.dir, "..", "..", "evals");

test("the pack holds the battery's tasks, their projects and acceptance tests, as evals/ has them", () => {
  const packed = packedBattery();
  const files = batteryFilesIn(EVALS);
  expect(Object.keys(packed).sort()).toEqual(Object.keys(files).sort());
  for (const [path, text] of Object.entries(files)) expect(packed[path], path).toBe(text);
});

test("unpacked, every battery task loads, the quick battery among them, and its project is beside it", () => {
  const tasks = loadTasks(unpackBattery(tempFolder("battery")));
  expect(tasks.map((task) => task.name).sort()).toEqual([...BATTERY].sort());
  for (const name of QUICK_BATTERY) expect(BATTERY).toContain(name);
});
