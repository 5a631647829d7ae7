/** How an eval says how far it is: a line redrawn in place on a terminal, a line now and then in a log. */
export interface ProgressSink {
  /** A terminal: one line, redrawn. */
  tty: boolean;
  write(text: string): void;
}

/** Plain lines at most this often when the sink is not a terminal (the first and last always). */
const PLAIN_EVERY_MS = 10_000;

/** `37/200 runs · 29 passed · 8 failed · ETA 14m`, from the runs finished so far. */
export class EvalProgress {
  private finished = 0;
  private passed = 0;
  private lastPlain = Number.NEGATIVE_INFINITY;
  private readonly started: number;

  constructor(
    private readonly total: number,
    private readonly sink: ProgressSink,
    private readonly now: () => number = () => performance.now(),
    /** Runs already finished before this process (a resumed eval): counted, not timed. */
    private readonly carried: { finished: number; passed: number } = { finished: 0, passed: 0 },
  ) {
    this.started = now();
    this.show(true);
  }

  ran(passed: boolean): void {
    this.finished++;
    if (passed) this.passed++;
    this.show(this.finished + this.carried.finished === this.total);
  }

  line(): string {
    const finished = this.finished + this.carried.finished;
    const passed = this.passed + this.carried.passed;
    const left = this.total - finished;
    const eta = this.finished && left ? ` · ETA ${duration(((this.now() - this.started) / this.finished) * left)}` : "";
    return `${finished}/${this.total} runs · ${passed} passed · ${finished - passed} failed${eta}`;
  }

  private show(force: boolean): void {
    if (this.sink.tty) {
      this.sink.write(`\r\u001b[2K${this.line()}${this.finished + this.carried.finished === this.total ? "\n" : ""}`);
      return;
    }
    const at = this.now();
    if (!force && at - this.lastPlain < PLAIN_EVERY_MS) return;
    this.lastPlain = at;
    this.sink.write(`${this.line()}\n`);
  }
}

/** 45s, 14m, 2h05m. */
export function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}
