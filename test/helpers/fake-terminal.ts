import { afterEach } from "bun:test";
import { PassThrough } from "node:stream";
import type { Widgets } from "../../src/tui/blessed.ts";
import { createScreen } from "../../src/tui/screen.ts";

const open: Widgets.Screen[] = [];
afterEach(() => {
  for (const screen of open.splice(0)) screen.destroy();
});

/** A real blessed screen, 160×45, writing to a stream the test reads instead of a terminal. */
export function fakeTerminal(): { screen: Widgets.Screen; frame(draw: () => void): string } {
  const output = Object.assign(new PassThrough(), { columns: 160, rows: 45, isTTY: true });
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => {} });
  const screen = createScreen({ input: input as never, output: output as never, terminal: "xterm-256color" });
  let written = "";
  output.on("data", (chunk: Buffer) => (written += chunk.toString("utf8")));
  open.push(screen);
  return {
    screen,
    /** What one frame wrote: `draw` updates the widgets, then the screen renders. */
    frame(draw) {
      written = "";
      draw();
      screen.render();
      (screen.program as unknown as { flush(): void }).flush(); // blessed buffers writes until the next tick
      return written;
    },
  };
}
