import { expect, test } from "bun:test";
import { EvalProgress, duration } from "../../src/eval/progress.ts";
import { inParallel } from "../../src/eval/pool.ts";

test("the progress line counts, and estimates the rest from the pace so far", () => {
  let now = 0;
  const written: string[] = [];
  const progress = new EvalProgress(200, { tty: true, write: (text) => written.push(text) }, () => now, { finished: 10, passed: 9 });
  for (let i = 0; i < 27; i++) {
    now += 3000;
    progress.ran(i % 4 !== 0);
  }
  expect(progress.line()).toBe("37/200 runs · 29 passed · 8 failed · ETA 8m");
  expect(written.at(-1)).toBe("\r\u001b[2K37/200 runs · 29 passed · 8 failed · ETA 8m");
});

test("away from a terminal: a plain line at the start, every ten seconds at most, and at the end", () => {
  let now = 0;
  const written: string[] = [];
  const progress = new EvalProgress(4, { tty: false, write: (text) => written.push(text) }, () => now);
  for (const at of [1000, 2000, 12_500, 13_000]) {
    now = at;
    progress.ran(true);
  }
  expect(written).toEqual(["0/4 runs · 0 passed · 0 failed\n", "3/4 runs · 3 passed · 0 failed · ETA 4s\n", "4/4 runs · 4 passed · 0 failed\n"]);
});

test("durations read in the largest sensible unit", () => {
  expect([duration(45_000), duration(14 * 60_000), duration(125 * 60_000)]).toEqual(["45s", "14m", "2h05m"]);
});

test("the pool keeps at most N going and returns results in the items' order", async () => {
  let running = 0;
  let most = 0;
  const results = await inParallel([50, 10, 30, 5, 20, 1], 3, async (ms, index) => {
    most = Math.max(most, ++running);
    await Bun.sleep(ms);
    running--;
    return index;
  });
  expect(results).toEqual([0, 1, 2, 3, 4, 5]);
  expect(most).toBe(3);
});
