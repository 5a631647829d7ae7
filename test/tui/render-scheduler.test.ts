import { expect, test } from "bun:test";
import { RenderScheduler, type Timers } from "../../src/tui/render-scheduler.ts";

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
  const scheduler = new RenderScheduler(() => renders++, 16, timers);
  for (let i = 0; i < 1000; i++) scheduler.request();
  expect(renders).toBe(0);
  timers.advance(0);
  expect(renders).toBe(1);
});

test("at most one render per frame while requests keep coming", () => {
  const timers = new FakeTimers();
  let renders = 0;
  const scheduler = new RenderScheduler(() => renders++, 16, timers);
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
  const scheduler = new RenderScheduler(() => renders++, 16, timers);
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
