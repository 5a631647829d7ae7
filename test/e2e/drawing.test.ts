/**
 * End to end: frames write only what changed (the terminal scrolls the transcript itself, short
 * unchanged runs are rewritten, idle cursor moves dropped), and what the terminal ends up showing
 * is exactly what a full redraw shows. The compiled binary in tmux streams from a fake llama.cpp
 * server on 127.0.0.1; Ctrl-L forgets what the terminal shows and draws every cell, which is the
 * reference. Skipped without tmux, or with GLASSBOX_SKIP_E2E=1.
 */
import { describe, expect, test } from "bun:test";
import { E2E_SKIPPED, STATUS, expectCleanExit, useTerminal, type Pane } from "../helpers/terminal.ts";
import { llamaCppServer, llamaCppTextScene } from "../helpers/fake-server.ts";

/** Numbered words, a line of 24 at a time (each line wraps into two rows of the transcript). */
function numberedText(count: number): string {
  return Array.from({ length: count }, (_, i) => `w${i + 1}${(i + 1) % 24 === 0 ? "\n" : " "}`).join("");
}

/** The numbered words on screen, in screen order. */
function numbers(screen: string): number[] {
  return [...screen.matchAll(/(?<![0-9])w(\d+)(?![0-9])/g)].map((match) => Number(match[1]));
}

function consecutive(values: number[]): boolean {
  return values.length > 0 && values.every((value, i) => i === 0 || value === values[i - 1]! + 1);
}

describe.skipIf(E2E_SKIPPED)("drawing only what changed", () => {
  const term = useTerminal();

  /** The screen with its colours (`capture-pane -e`). */
  const withColours = (pane: Pane) => term.tmux("capture-pane", "-p", "-e", "-t", pane.name);

  /** The screen, then the screen after Ctrl-L has drawn every cell again: they must be the same. */
  async function againstFullRedraw(pane: Pane, what: string): Promise<void> {
    await Bun.sleep(300); // nothing left to draw
    const incremental = withColours(pane);
    pane.keys("C-l");
    await Bun.sleep(500);
    expect(withColours(pane), `${what}: the screen after Ctrl-L`).toBe(incremental);
  }

  test("a reply streamed past the pane's height, then scrolled up and down, leaves the screen a full redraw draws", async () => {
    const count = 1500;
    // 3 ms a word: a stream of about five seconds, so a loaded machine's captures still catch it mid-way.
    const server = llamaCppServer(() => llamaCppTextScene(numberedText(count), 3));
    const { workspace } = term.scripted("drawing", []);
    const pane = term.start("drawing", ["--workspace", workspace, "--model", `llamacpp:${server.url}`]);
    await pane.waitFor("Type a task", "the first frame");
    pane.type("count for me");
    pane.keys("Enter");
    // Mid-stream the words shown run without a gap: no row was lost or written twice. (A capture
    // can catch a frame half written, so a screen with the words in order is waited for.)
    await pane.waitFor((text) => numbers(text).length > 200 && consecutive(numbers(text)) && !STATUS(text).includes("stopped"), "the stream past the pane's height, its words in order", 20_000);
    const ended = await pane.waitFor((text) => STATUS(text).includes("stopped: completed"), "the end of the reply", 30_000);
    const shown = numbers(ended);
    expect(shown.at(-1)).toBe(count);
    expect(consecutive(shown)).toBe(true);
    await againstFullRedraw(pane, "after the stream");

    // Tab to the transcript; PgUp scrolls it by less than its height (the terminal inserts the
    // rows), Up by one, End back down (the terminal deletes them).
    pane.keys("Tab");
    pane.keys("PageUp");
    const up = await pane.waitFor((text) => /transcript · \d+\/\d+/.test(text) && numbers(text).at(-1)! < count && consecutive(numbers(text)), "the transcript scrolled up, its words in order");
    pane.keys("Up");
    await pane.waitFor((text) => numbers(text).at(-1)! < numbers(up).at(-1)!, "one row further up");
    await againstFullRedraw(pane, "after PgUp and Up");
    pane.keys("End");
    await pane.waitFor((text) => numbers(text).at(-1) === count, "the transcript back at the end");
    await againstFullRedraw(pane, "after End");

    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 90_000);
});
