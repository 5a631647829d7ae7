/**
 * BENCHMARK HOOK, for scripts/bench-tui.ts only. Inert (one env lookup) unless
 * GLASSBOX_BENCH_REPORT is set; users never set it.
 *
 *   GLASSBOX_BENCH_REPORT=FILE   append JSON lines to FILE:
 *     {"event":"first_frame","ms":…,"at":…,"rss":…}  when the first screen.render() ends; `ms` is
 *                                              performance.now() (since the process started), `at`
 *                                              Date.now(), `rss` bytes
 *     {"event":"sample","ms":…,"at":…,"rss":…,"heap":…,"lag":[…],"renders":…,"render_ms":…,"rows":…}
 *                                              once a second: RSS and JS heap in use (bytes), the
 *                                              event-loop lag samples of that second (ms; how late
 *                                              a 50 ms timer fired), the frames drawn and the time
 *                                              spent in screen.render(), the transcript's rows
 *   GLASSBOX_BENCH_PREFILL=N     put N lines in the transcript before the first frame
 *
 * The task itself is typed into the terminal by the benchmark, like a user would.
 */
import { appendFileSync } from "node:fs";
import type { Widgets } from "./blessed.ts";
import type { TranscriptPane } from "./panes/transcript-pane.ts";

/**
 * How often the lag probe wakes the process. Its wake-ups are CPU the benchmark reads as the
 * binary's: at 10 ms, 100 a second, they were about half a point of a core.
 */
const LAG_TICK_MS = 50;
const WORDS = ["alpha", "beta", "gamma", "delta", "omega", "kappa", "sigma", "theta"];

export function benchHook(screen: Widgets.Screen, transcript: TranscriptPane, env: Record<string, string | undefined> = process.env): void {
  const file = env.GLASSBOX_BENCH_REPORT;
  if (!file) return;
  const write = (record: Record<string, unknown>) => appendFileSync(file, JSON.stringify(record) + "\n");
  const rss = () => process.memoryUsage.rss();

  const prefill = Number(env.GLASSBOX_BENCH_PREFILL ?? 0);
  for (let i = 1; i <= prefill; i++) {
    transcript.line(`prefill ${i}: ${WORDS.map((_, w) => WORDS[(i + w) % WORDS.length]).join(" ")}`, i % 10 === 0 ? "notice" : "assistant");
  }
  // The garbage of making those lines would be long collected in the session that wrote them;
  // left in place, its first collection lands inside the measured stream.
  if (prefill > 0) Bun.gc(true);

  let renders = 0;
  let renderMs = 0;
  let frameStart = 0;
  let first = true;
  screen.on("prerender", () => (frameStart = performance.now()));
  screen.on("render", () => {
    const now = performance.now();
    renders++;
    renderMs += now - frameStart;
    if (first) {
      first = false;
      write({ event: "first_frame", ms: now, at: Date.now(), rss: rss() });
    }
  });

  // Event-loop lag: how late a timer fires.
  let lag: number[] = [];
  let expected = performance.now() + LAG_TICK_MS;
  const tick = () => {
    const now = performance.now();
    lag.push(Math.round(Math.max(0, now - expected) * 100) / 100);
    expected = now + LAG_TICK_MS;
    setTimeout(tick, LAG_TICK_MS).unref();
  };
  setTimeout(tick, LAG_TICK_MS).unref();
  setInterval(() => {
    write({ event: "sample", ms: performance.now(), at: Date.now(), rss: rss(), heap: process.memoryUsage().heapUsed, lag, renders, render_ms: Math.round(renderMs * 100) / 100, rows: transcript.buffer.length });
    lag = [];
    renders = 0;
    renderMs = 0;
  }, 1000).unref();
}
