import { expect, test } from "bun:test";
import { FRAME_MS, POURING_FRAME_MS, POURING_ROWS_PER_SECOND, RenderScheduler, paceFor, type Timers } from "../../src/tui/render-scheduler.ts";

/** Timers that run only when the test moves the clock. */
class FakeTimers implements Timers {
  time = 0;
  private queue: Array<{ at: number; callback: () => void; id: number }> = [];
  private next = 1;
  now() {
    return this.time;
  }
  set(callback: () => void, ms: number) {
    const id = this.next++;
    this.queue.push({ at: this.time + ms, callback, id });
    return id;
  }
  clear(handle: unknown) {
    this.queue = this.queue.filter((timer) => timer.id !== handle);
  }
  advance(ms: number) {
    this.time += ms;
    for (;;) {
      const due = this.queue.filter((timer) => timer.at <= this.time).sort((a, b) => a.at - b.at)[0];
      if (!due) return;
      this.clear(due.id);
      due.callback();
    }
  }
}

test("a thousand requests inside one frame give one render", () => {
  const timers = new FakeTimers();
  let renders = 0;
  const scheduler = new RenderScheduler(() => renders++, { frameMs: 16, timers });
  for (let i = 0; i < 1000; i++) scheduler.request();
  expect(renders).toBe(0);
  timers.advance(0);
  expect(renders).toBe(1);
});

test("at most one render per frame while requests keep coming", () => {
  const timers = new FakeTimers();
  let renders = 0;
  const scheduler = new RenderScheduler(() => renders++, { frameMs: 16, timers });
  // 2,000 tokens a second for one second: a request every half millisecond.
  for (let t = 0; t < 1000; t += 0.5) {
    scheduler.request();
    timers.advance(0.5);
  }
  expect(renders).toBeGreaterThanOrEqual(55);
  expect(renders).toBeLessThanOrEqual(1000 / 16 + 1);
});

test("a request after a quiet spell renders at once; flush draws what is waiting", () => {
  const timers = new FakeTimers();
  let renders = 0;
  const scheduler = new RenderScheduler(() => renders++, { frameMs: 16, timers });
  timers.advance(100);
  scheduler.request();
  timers.advance(0);
  expect(renders).toBe(1);
  scheduler.request();
  expect(renders).toBe(1);
  scheduler.flush();
  expect(renders).toBe(2);
  scheduler.flush();
  expect(renders).toBe(2);
  scheduler.request();
  scheduler.stop();
  timers.advance(100);
  expect(renders).toBe(2);
});

test("after expedite a request draws a quick frame at once, and the full frame still comes at the pace", () => {
  const timers = new FakeTimers();
  const frames: boolean[] = [];
  const scheduler = new RenderScheduler((full) => frames.push(full), { frameMs: 100, timers });
  scheduler.request();
  timers.advance(0);
  expect(frames).toEqual([true]);
  timers.advance(10);
  scheduler.request(); // a token: waits for the pace
  scheduler.expedite();
  scheduler.request(); // a key
  timers.advance(0);
  expect(frames).toEqual([true, false]);
  timers.advance(89);
  expect(frames).toEqual([true, false]);
  timers.advance(1);
  expect(frames).toEqual([true, false, true]); // 100 ms after the last full frame: the quick one did not move it
});

test("a quick frame is not drawn when the full one is due anyway; soon() draws a full frame at once", () => {
  const timers = new FakeTimers();
  const frames: boolean[] = [];
  const scheduler = new RenderScheduler((full) => frames.push(full), { frameMs: 100, timers });
  timers.advance(500);
  scheduler.expedite();
  scheduler.request();
  timers.advance(0);
  expect(frames).toEqual([true]);
  timers.advance(20);
  scheduler.request();
  scheduler.soon(); // Ctrl-L
  timers.advance(0);
  expect(frames).toEqual([true, true]);
  timers.advance(200);
  expect(frames).toEqual([true, true]);
});

test("drawNow() draws a full frame and writes it out before returning, whatever the pace, and takes the waiting one's place", () => {
  const timers = new FakeTimers();
  const frames: Array<boolean | "written"> = [];
  const scheduler = new RenderScheduler((full) => frames.push(full), { frameMs: 200, timers, writeOut: () => frames.push("written") });
  scheduler.request();
  timers.advance(0);
  timers.advance(20);
  scheduler.request(); // due 180 ms from now
  scheduler.drawNow(); // the end of a reply
  expect(frames).toEqual([true, true, "written"]);
  timers.advance(400);
  expect(frames).toEqual([true, true, "written"]);
});

test("text scrolling by faster than anyone reads slows the pace; slower text keeps it", () => {
  expect(paceFor(POURING_ROWS_PER_SECOND)).toBe(POURING_FRAME_MS);
  expect(paceFor(POURING_ROWS_PER_SECOND - 1)).toBe(FRAME_MS);
  expect(POURING_FRAME_MS).toBeGreaterThan(FRAME_MS);
});
