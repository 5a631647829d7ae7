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

/** About 30 frames a second: streamed text a person can read looks the same as at 60, for a third less CPU. */
export const FRAME_MS = 33;
/**
 * The pace while text scrolls by faster than anyone reads it: 5 frames a second still shows it
 * moving, and every frame that scrolls costs the side column's cells again, in the terminal and in
 * the diff. Measured with bench:tui at 2,000 tokens a second: 8 frames a second took 12-15% of a
 * core and 340 KB per 10 s, 5 took 11-13% and 270 KB.
 */
export const POURING_FRAME_MS = 200;
/** Rows scrolled into view per second beyond which text pours: no one reads ten rows a second. */
export const POURING_ROWS_PER_SECOND = 10;

/** The frame pace for text scrolling by at `rowsPerSecond`. */
export function paceFor(rowsPerSecond: number): number {
  return rowsPerSecond >= POURING_ROWS_PER_SECOND ? POURING_FRAME_MS : FRAME_MS;
}

/**
 * Tokens arrive faster than a terminal should redraw: any number of requests within one frame
 * become one render, at most one per `frameMs` (which the app may change: see POURING_FRAME_MS).
 * A request after a quiet spell draws at once.
 *
 * After `expedite()` (a key typed), the next request also draws at once, but as a quick frame
 * (`render(false)`): only the key's echo reaches the terminal; the full frame still comes at the
 * pace, which the quick one does not move.
 */
export class RenderScheduler {
  private pending: unknown = null;
  private quick: unknown = null;
  private last = -Infinity;
  private expedited = false;
  renders = 0;

  /** The frame pace in milliseconds; the app may change it (see POURING_FRAME_MS). */
  frameMs: number;
  private readonly timers: Timers;
  /** Puts a drawn frame on the terminal now (blessed writes it when the event loop next turns). */
  private readonly writeOut: () => void;

  constructor(
    private readonly render: (full: boolean) => void,
    options: { frameMs?: number; timers?: Timers; writeOut?: () => void } = {},
  ) {
    this.frameMs = options.frameMs ?? FRAME_MS;
    this.timers = options.timers ?? realTimers;
    this.writeOut = options.writeOut ?? (() => {});
  }

  request(): void {
    const now = this.timers.now();
    const wait = Math.max(0, this.last + this.frameMs - now);
    if (this.expedited && wait > 0 && this.quick === null) {
      this.quick = this.timers.set(() => {
        this.quick = null;
        this.renders++;
        this.render(false);
      }, 0);
    }
    this.expedited = false;
    if (this.pending !== null) return;
    this.pending = this.timers.set(() => this.run(), wait);
  }

  /** The next request draws at once (as a quick frame if a full one is not due yet). */
  expedite(): void {
    this.expedited = true;
  }

  /** A full frame at the next turn of the event loop, whatever the pace (Ctrl-L, after the screen is reallocated). */
  soon(): void {
    if (this.pending !== null) this.timers.clear(this.pending);
    this.pending = this.timers.set(() => this.run(), 0);
  }

  /** Draws now if anything is waiting (before a modal opens, before quitting). */
  flush(): void {
    if (this.pending !== null) this.drawNow();
  }

  /**
   * A full frame now, whatever the pace, and on the terminal now: the end of a reply, whose last
   * words must not wait, not even for the rest of the turn, which goes on in promise callbacks
   * before the event loop turns (30-40 ms at the end of bench:tui's 20,000-token reply).
   */
  drawNow(): void {
    if (this.pending !== null) this.timers.clear(this.pending);
    this.run();
    this.writeOut();
  }

  stop(): void {
    if (this.pending !== null) this.timers.clear(this.pending);
    if (this.quick !== null) this.timers.clear(this.quick);
    this.pending = this.quick = null;
  }

  private run(): void {
    if (this.quick !== null) this.timers.clear(this.quick); // the full frame shows the key too
    this.pending = this.quick = null;
    this.last = this.timers.now();
    this.renders++;
    this.render(true);
  }
}
