/**
 * The compiled binary, alone in a temp dir (no node_modules or Bun beside it or on PATH), driven
 * in a real terminal: tmux `send-keys` in, `capture-pane` out. Each e2e file calls
 * `useTerminal()` at the top of its describe block; every file runs on a private tmux server
 * (`tmux -L`), so nobody else's tmux is touched, and the binary is built once per `bun test`.
 *
 * Each session runs the binary under a wrapper script, which prints `EXITED <code>` and the
 * terminal's line discipline afterwards, then keeps the pane open: what is left on the pane after
 * glassbox quits is exactly what a user's shell would show.
 *
 * e2e files skip themselves without tmux, or with GLASSBOX_SKIP_E2E=1 (`E2E_SKIPPED`).
 */
import { afterAll, beforeAll, expect } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { GLASSBOX_ENTRY, buildBinary } from "../../scripts/build.ts";
import { copyToyWorkspace } from "../../src/session/toy-workspace.ts";
import { required } from "./required.ts";
import { sharedOnce } from "./shared-once.ts";
import { endE2eServers, isAlive } from "./tmux-servers.ts";

export const tmuxPath = Bun.which("tmux");
/** GLASSBOX_SKIP_E2E=1 skips them by choice; without tmux they skip, unless GLASSBOX_REQUIRE_TMUX=1 makes them fail. */
export const E2E_SKIPPED = process.env.GLASSBOX_SKIP_E2E === "1" || (!tmuxPath && !required("tmux"));
export const WIDTH = 160;
export const HEIGHT = 45;

/** The binary, built once per test run into a folder of its own. */
function sharedBinary(): Promise<string> {
  return sharedOnce("e2e-bin", async (folder) => (await buildBinary(GLASSBOX_ENTRY, path.join(folder, "glassbox"))).outfile);
}

export interface Pane {
  name: string;
  /** The screen as text, one line per row. */
  screen(): string;
  /** The screen with its colours and styles as escape sequences (`capture-pane -e`). */
  styled(): string;
  keys(...keys: string[]): void;
  /** Typed literally (no key names). */
  type(text: string): void;
  /** Polls the screen until `want` shows (a string, a pattern, or a test), or fails with the screen. */
  waitFor(want: string | RegExp | ((text: string) => boolean), what?: string, ms?: number, pollMs?: number): Promise<string>;
  format(spec: string): string;
  close(): void;
}

export interface Terminal {
  /** The folder the panes start in; tests put their workspaces and scripts here. */
  readonly dir: string;
  /** TMPDIR of every pane (the demo's temp workspace lands there). */
  readonly tmp: string;
  /** The compiled binary under test. */
  readonly binary: string;
  start(name: string, args: string[], env?: Record<string, string | undefined>): Pane;
  /** A scripted-model file and a fresh toy workspace for it. */
  scripted(name: string, replies: unknown[], notes?: string): { workspace: string; args: string[] };
  tmux(...args: string[]): string;
  /** The pid of the glassbox a pane runs: a descendant of the pane's process running the binary under test (never found by name). */
  glassboxPid(pane: Pane): number;
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

let servers = 0;

/** Long enough for tmux to take the rest of a frame, short enough to act while a short reply still streams. */
const SETTLE_MS = 25;

/** Sets up (beforeAll) and tears down (afterAll) a private tmux server for the calling describe block. */
export function useTerminal(): Terminal {
  const socket = `glassbox-e2e-${process.pid}-${++servers}`;
  const open = new Set<string>();
  const state = { dir: "", tmp: "", binary: "", wrapper: "" };

  const tmux = (...args: string[]): string => {
    const result = Bun.spawnSync([tmuxPath!, "-L", socket, "-f", "/dev/null", ...args], { stderr: "pipe" });
    if (result.exitCode !== 0) throw new Error(`tmux ${args[0]}: ${result.stderr.toString().trim()}`);
    return result.stdout.toString();
  };

  beforeAll(async () => {
    if (!tmuxPath) throw new Error("GLASSBOX_REQUIRE_TMUX=1, but tmux is not on PATH: install it (apt-get install tmux)");
    // Servers a bailed-out test process left behind (its afterAll never ran).
    endE2eServers((owner) => !isAlive(owner), tmuxPath ?? undefined);
    state.dir = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-e2e-"));
    state.tmp = path.join(state.dir, "tmp");
    fs.mkdirSync(state.tmp);
    state.binary = await sharedBinary();
    state.wrapper = path.join(state.dir, "wrapper.sh");
    fs.writeFileSync(
      state.wrapper,
      [
        "#!/bin/bash",
        '"$@"',
        "code=$?",
        'echo "EXITED $code"',
        `echo "tty $(stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(icanon|isig|echo)' | tr '\\n' ' ' | sed 's/ $//')"`,
        "exec sleep 600",
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    // The binary alone in its folder: no node_modules beside it.
    expect(fs.readdirSync(path.dirname(state.binary))).toEqual(["glassbox"]);
    // A session that lives as long as the file: the server would exit between two sessions otherwise.
    tmux("new-session", "-d", "-s", "keeper", "sleep 600");
  }, 60_000);

  afterAll(() => {
    for (const name of [...open]) {
      try {
        tmux("kill-session", "-t", name);
      } catch {
        // gone
      }
    }
    // Only our private server, by its socket name; never the default one. Its socket file stays
    // behind when the server ends, so it goes too.
    let socketPath = "";
    try {
      socketPath = tmux("display-message", "-p", "#{socket_path}").trim();
    } catch {
      // no server was started
    }
    try {
      tmux("kill-server");
    } catch {
      // no server was started
    }
    if (socketPath.endsWith(`/${socket}`)) fs.rmSync(socketPath, { force: true });
    if (state.dir) fs.rmSync(state.dir, { recursive: true, force: true });
  });

  /**
   * Starts `glassbox ARGS` in a fresh session on the private server. The environment is minimal:
   * PATH without Bun, TMPDIR inside the test's dir, and a real TERM (tmux would otherwise pass its own).
   */
  const start = (name: string, args: string[], env: Record<string, string | undefined> = {}): Pane => {
    const vars = { TERM: "xterm-256color", NCURSES_NO_UTF8_ACS: "1", PATH: "/usr/local/bin:/usr/bin:/bin", HOME: os.homedir(), TMPDIR: state.tmp, LANG: "C.UTF-8", ...env };
    const assignments = Object.entries(vars).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`]));
    const command = ["env", "-i", ...assignments, state.wrapper, state.binary, ...args].map(quote).join(" ");
    tmux("new-session", "-d", "-s", name, "-x", String(WIDTH), "-y", String(HEIGHT), "-c", state.dir, command);
    open.add(name);
    const pane: Pane = {
      name,
      screen: () => tmux("capture-pane", "-p", "-t", name),
      styled: () => tmux("capture-pane", "-e", "-p", "-t", name),
      keys: (...keys) => void tmux("send-keys", "-t", name, ...keys),
      type: (text) => void tmux("send-keys", "-t", name, "-l", text),
      format: (spec) => tmux("display-message", "-p", "-t", name, spec).trim(),
      async waitFor(want, what, ms = 8000, pollMs = 40) {
        const done = typeof want === "function" ? want : typeof want === "string" ? (t: string) => t.includes(want) : (t: string) => want.test(t);
        let text = "";
        for (const started = Date.now(); Date.now() - started < ms; await Bun.sleep(pollMs)) {
          text = pane.screen();
          if (!done(text)) continue;
          // tmux takes a big frame in pieces: a match can show a frame half written, so what is
          // returned is a second look a moment later, if it still matches.
          await Bun.sleep(SETTLE_MS);
          const again = pane.screen();
          if (done(again)) return again;
          text = again;
        }
        throw new Error(`${name}: timed out after ${ms} ms waiting for ${what ?? String(want)}; the pane shows:\n${text}`);
      },
      close() {
        open.delete(name);
        try {
          tmux("kill-session", "-t", name);
        } catch {
          // already gone
        }
      },
    };
    return pane;
  };

  const scripted = (name: string, replies: unknown[], notes?: string) => {
    const workspace = copyToyWorkspace(fs.mkdtempSync(path.join(state.dir, `${name}-`)));
    if (notes !== undefined) fs.writeFileSync(path.join(workspace, "NOTES.md"), notes);
    const script = path.join(state.dir, `${name}.json`);
    fs.writeFileSync(script, JSON.stringify({ replies }));
    return { workspace, args: ["--workspace", workspace, "--model", `scripted:${script}`] };
  };

  const descendants = (pid: number): number[] => {
    const children = Bun.spawnSync(["pgrep", "-P", String(pid)]).stdout.toString().split("\n").filter(Boolean).map(Number);
    return children.flatMap((child) => [child, ...descendants(child)]);
  };

  const glassboxPid = (pane: Pane): number => {
    const found = descendants(Number(pane.format("#{pane_pid}"))).filter((pid) => {
      try {
        return fs.readlinkSync(`/proc/${pid}/exe`) === state.binary;
      } catch {
        return false;
      }
    });
    if (found.length !== 1) throw new Error(`${pane.name}: ${found.length} glassbox processes, not one`);
    return found[0]!;
  };

  return {
    get dir() {
      return state.dir;
    },
    get tmp() {
      return state.tmp;
    },
    get binary() {
      return state.binary;
    },
    start,
    scripted,
    tmux,
    glassboxPid,
  };
}

/** The rows of the screen that are not blank, trimmed. */
export function rows(text: string): string[] {
  return text.split("\n").map((line) => line.trimEnd()).filter(Boolean);
}

/**
 * After glassbox has quit: the pane is back on the normal screen, the wrapper printed the exit
 * code, the line discipline is cooked again (canonical mode, echo, signals), the cursor shows,
 * and nothing else was left behind: no stack trace, no half-drawn frame, no escape garbage.
 */
export async function expectCleanExit(pane: Pane, code: number): Promise<void> {
  const text = await pane.waitFor(/^tty /m, `EXITED ${code}`);
  expect(rows(text)).toEqual([`EXITED ${code}`, "tty isig icanon echo"]);
  expect(pane.format("#{alternate_on} #{cursor_flag} #{mouse_any_flag}")).toBe("0 1 0");
}

/**
 * Each row showing `marker` has the transcript's right border in the column of the transcript's
 * top-right corner: a glyph drawn wider than blessed counted it pushes the border right, or off.
 */
export function expectRightBorders(screen: string, marker: string): void {
  const rows = screen.split("\n").map((row) => [...row]);
  const marked = rows.filter((row) => row.join("").includes(marker));
  expect(marked.length).toBeGreaterThan(0);
  const border = rows[0]!.indexOf("┐");
  expect(border).toBeGreaterThan(0);
  for (const row of marked) expect(row[border], row.join("")).toBe("│");
}

/**
 * The transcript pane's text as one line: each row between the pane's borders, trimmed and joined
 * with a space, so a sentence blessed wrapped (a long temp path pushes words to the next row) is
 * matched whole.
 */
export function transcriptText(screen: string): string {
  const rows = screen.split("\n").map((row) => [...row]);
  const border = rows[0]?.indexOf("┐") ?? -1;
  return rows
    .filter((row) => row[0] === "│" && border > 0 && row[border] === "│")
    .map((row) => row.slice(1, border).join("").trim())
    .filter(Boolean)
    .join(" ");
}

/** The status line: the screen's last row. */
export const STATUS = (text: string) => text.split("\n").filter(Boolean).at(-1) ?? "";

/** The tokens meter's figure (`tokens   15k`, `tokens   836`), NaN when not on screen. */
export function tokens(text: string): number {
  const match = text.match(/│tokens +(?:[█░]+ )?([\d.]+)(k|M)?[\s/]/);
  return match ? Number(match[1]) * (match[2] === "k" ? 1e3 : match[2] === "M" ? 1e6 : 1) : NaN;
}
