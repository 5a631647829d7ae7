/**
 * A proof that blessed works from the compiled binary: two bordered boxes, q or Ctrl-C quits.
 * Reached (temporarily) by the hidden `glassbox --tui-probe`.
 *
 * With GLASSBOX_PROBE_REPORT=FILE it appends one JSON line to FILE: the wall-clock time of the
 * first frame (ms since the epoch) and the RSS one second later, for the startup benchmark.
 */
import fs from "node:fs";
import { blessed, createScreen, terminalProblem } from "./blessed.ts";

export function runProbe(): Promise<number> {
  const problem = terminalProblem();
  if (problem) {
    console.error(`glassbox: ${problem}`);
    return Promise.resolve(1);
  }

  const screen = createScreen({ title: "glassbox probe" });
  blessed.box({
    parent: screen,
    top: 0,
    left: 0,
    width: "60%",
    height: 5,
    border: "line",
    content: "glassbox probe",
  });
  blessed.box({
    parent: screen,
    top: 5,
    left: 0,
    width: "60%",
    height: 6,
    border: "line",
    // Literal braces must stay text (tags are off); the CJK line checks fullUnicode widths.
    content: "second box: press q or Ctrl-C to quit\n{bold}not markup{/bold}\n幅広い文字 ok|",
  });

  const report = process.env.GLASSBOX_PROBE_REPORT;
  if (report) {
    screen.once("render", () => {
      const firstFrameAt = Date.now();
      setTimeout(() => {
        const line = { firstFrameAt, rssBytes: process.memoryUsage().rss, term: process.env.TERM ?? null };
        fs.appendFileSync(report, `${JSON.stringify(line)}\n`);
      }, 1000);
    });
  }

  return new Promise((resolve) => {
    screen.key(["q", "C-c"], () => {
      screen.destroy();
      resolve(0);
    });
    screen.render();
  });
}
