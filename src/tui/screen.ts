import fs from "node:fs";
import { blessed, type Widgets } from "./blessed.ts";
import { drawEconomically } from "./cell-writer.ts";
import { ignoreHangUps } from "../platform/hang-ups.ts";
import { separateEscapeKeys } from "./escape-keys.ts";

/* The screen glassbox draws on: made with its settings, the terminal restored whatever ends it, signals' cleanups, frames drawn. */

const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };
/**
 * How long a signal's exit waits for the cleanups; a second Ctrl-C ends glassbox at once (the
 * default action), further hang-ups are ignored meanwhile (HANG_UPS says why).
 */
const SIGNAL_CLEANUP_MS = 5000;
const signalCleanups = new Set<() => Promise<unknown>>();
/** An error after a signal, while its cleanups run: said on stderr where that still can be, never an exit of its own. */
const whileCleaningUp = (error: unknown) => {
  try {
    fs.writeSync(2, `glassbox: while stopping: ${describe(error)}\n`);
  } catch {
    // stderr went with the terminal
  }
};

/**
 * Work a signal's exit waits for, after the terminal is restored: stopping what glassbox started
 * that outlives it otherwise (a llama-server holding gigabytes). Returns its removal.
 */
export function onSignalExit(cleanup: () => Promise<unknown>): () => void {
  signalCleanups.add(cleanup);
  return () => signalCleanups.delete(cleanup);
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * A screen with glassbox's settings, whose terminal is restored (alternate buffer left, cursor
 * shown, raw mode off) on exit, uncaught exception, unhandled rejection, SIGTERM, SIGHUP and
 * SIGINT. Errors are written to stderr after the restore, so they land in the normal buffer.
 * A signal's exit waits for the cleanups given to onSignalExit. Ctrl-C in raw mode is a key, not
 * SIGINT: the caller binds "C-c".
 *
 * `forceUnicode` defaults to true (line borders and wide characters even under LANG=C); pass
 * `forceUnicode: undefined` to let blessed decide from the locale.
 */
export function createScreen(options: Widgets.IScreenOptions = {}): Widgets.Screen {
  const screen = withoutTmuxVersionProbe(() =>
    blessed.screen({
      smartCSR: true,
      fullUnicode: true,
      forceUnicode: true,
      autoPadding: true,
      title: "glassbox",
      ...options,
    }),
  );

  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    uninstall();
    try {
      screen.destroy();
    } catch {
      // the terminal may be gone (SIGHUP); nothing left to restore
    }
  };
  const die = (what: string) => (error: unknown) => {
    restore();
    fs.writeSync(2, `glassbox: ${what}: ${describe(error)}\n`);
    process.exit(1);
  };
  const onException = die("uncaught exception");
  const onRejection = die("unhandled rejection");
  const onSignal = (signal: NodeJS.Signals) => {
    // Before restore() takes this listener away: no instant without one, when a hang-up's default would end glassbox.
    ignoreHangUps();
    restore();
    // The terminal may be gone (a hang-up): a write to it that fails now must not end glassbox
    // before the cleanups have stopped the check or command and removed its temp folder.
    process.on("uncaughtException", whileCleaningUp);
    process.on("unhandledRejection", whileCleaningUp);
    const cleanups = Promise.allSettled([...signalCleanups].map(async (cleanup) => cleanup()));
    void Promise.race([cleanups, Bun.sleep(SIGNAL_CLEANUP_MS)]).then(() => process.exit(SIGNAL_EXIT[signal] ?? 1));
  };
  const signals = Object.keys(SIGNAL_EXIT) as NodeJS.Signals[];
  // blessed's own uncaughtException / SIGTERM / SIGINT handlers stand aside when another
  // listener exists, so these are the ones that act.
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  for (const signal of signals) process.on(signal, onSignal);
  process.on("exit", restore);
  function uninstall() {
    process.off("uncaughtException", onException);
    process.off("unhandledRejection", onRejection);
    for (const signal of signals) process.off(signal, onSignal);
    process.off("exit", restore);
  }
  drawEconomically(screen);
  separateEscapeKeys(screen.program.input);
  // The caller destroying the screen itself ends our duty too.
  screen.once("destroy", () => {
    restored = true;
    uninstall();
  });
  return screen;
}

/**
 * Inside tmux, blessed's Program runs `tmux -V` as a synchronous child process (about 10 ms of
 * the first frame on a 2-core machine) only to choose how to turn on all-motion mouse tracking,
 * which glassbox never does. The screen is made with TMUX out of the environment, then told it
 * is in tmux (its escape passthrough needs that) and the version tmux itself puts in the
 * environment (blessed's own fallback, 2, without it).
 */
function withoutTmuxVersionProbe(make: () => Widgets.Screen): Widgets.Screen {
  const env = process.env;
  const tmux = env.TMUX;
  if (tmux === undefined) return make();
  delete env.TMUX;
  let screen: Widgets.Screen;
  try {
    screen = make();
  } finally {
    env.TMUX = tmux;
  }
  const version = env.TERM_PROGRAM === "tmux" ? Number.parseFloat(env.TERM_PROGRAM_VERSION ?? "") : NaN;
  screen.program.tmux = true;
  screen.program.tmuxVersion = Number.isNaN(version) ? 2 : version;
  return screen;
}

/* ---------- drawing ---------- */

/**
 * Renders only `elements` and draws only their rows: for a frame where nothing else changed (a
 * key typed). Nothing may overlap them; a full `screen.render()` is the general case.
 */
export function drawOnly(screen: Widgets.Screen, elements: Widgets.BlessedElement[]): void {
  let top = Infinity;
  let bottom = -Infinity;
  for (const element of elements) {
    element.render();
    const drawn = (element as unknown as { lpos?: { yi: number; yl: number } }).lpos;
    if (!drawn) continue;
    top = Math.min(top, drawn.yi);
    bottom = Math.max(bottom, drawn.yl - 1);
  }
  if (top > bottom) return;
  const internals = screen as unknown as { draw(start: number, end: number): void; focused?: { _updateCursor?(get: boolean): void } };
  internals.draw(top, bottom);
  internals.focused?._updateCursor?.(true);
}

/**
 * Writes what blessed holds for the terminal now. blessed writes a frame out on setImmediate, so
 * work that goes on in promise callbacks meanwhile holds the frame back for as long as it takes.
 */
export function writeNow(screen: Widgets.Screen): void {
  (screen.program as unknown as { flush(): void }).flush();
}

/**
 * Sets a widget's content when it changed, and only then. blessed's own setContent() first clears
 * the widget's area (clearPos), so every line under it is marked dirty and diffed cell by cell at
 * the next render even when nothing changed; a widget's render fills its whole area anyway. Use
 * for widgets that stay in place (a resize reallocates and clears the whole screen).
 */
export function updateContent(element: Widgets.BlessedElement, content: string): void {
  if ((element as unknown as { content: string }).content === content) return;
  (element as unknown as { setContent(content: string, noClear: boolean): void }).setContent(content, true);
}
