export interface Timers {
  now(): number;
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  now: () => performance.now(),
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Tokens arrive faster than a terminal should redraw: any number of requests within one frame
 * become one render, at most one per `frameMs`. The default is about 30 frames a second:
 * streamed text reads the same, and while 2,000 tokens/s stream in it costs about a third less
 * CPU than 60 (scripts/bench-tui.ts). A request after a quiet spell draws at once, so a key
 * press is not delayed.
 */
export class RenderScheduler {
  private pending: unknown = null;
  private last = -Infinity;
  renders = 0;

  constructor(
    private readonly render: () => void,
    private readonly frameMs = 33,
    private readonly timers: Timers = realTimers,
  ) {}

  request(): void {
    if (this.pending !== null) return;
    const wait = Math.max(0, this.last + this.frameMs - this.timers.now());
    this.pending = this.timers.set(() => this.run(), wait);
  }

  /** Draws now if anything is waiting (before a modal opens, before quitting). */
  flush(): void {
    if (this.pending === null) return;
    this.timers.clear(this.pending);
    this.run();
  }

  stop(): void {
    if (this.pending !== null) this.timers.clear(this.pending);
    this.pending = null;
  }

  private run(): void {
    this.pending = null;
    this.last = this.timers.now();
    this.renders++;
    this.render();
  }
}
