#!/usr/bin/env bun
/**
 * What the TUI costs a user's machine, measured on the compiled binary through a real socket
 * (issue 16; first issue 4).
 *
 *   npm run bench:tui
 *   bun scripts/bench-tui.ts [--runs N] [--seconds S] [--rounds R] [--million TOKENS] [--no-build] [--no-tmux]
 *                            [--only frame,stream,million] [--million-rate R] [--replies N] [--exec "COMMAND"]
 *
 * Prints figures and whether each target is met; it asserts nothing (exit code 0 unless the
 * benchmark itself breaks). About four minutes on the 2-core machine. The load average is printed
 * first and last: other work on the machine moves every figure (timings most).
 *
 * How:
 * - buildBinary() (scripts/build.ts) makes dist/glassbox and a compiled hello world dist/hello.
 * - A fake llama.cpp server (this file with `--server`) runs in its own process, so its CPU is not
 *   counted: /health, /props (n_ctx 1e9), and /v1/chat/completions streaming Server-Sent Events
 *   in the shape of test/fixtures/llamacpp-wire/01-text-stream.sse over HTTP on 127.0.0.1, one
 *   numbered word per chunk (`w1 `, `w2 `, …, a newline every 24), paced by writing whatever is
 *   due every millisecond. The reply is Markdown, half of it fenced code (markdownToken()), so
 *   the renderer and the highlighter are measured too. The task is typed into the TUI's input line like a user would and says
 *   how much and how fast: "bench TOKENS RATE" (RATE 0: as fast as the client reads).
 * - Streaming (figure 2) runs the binary in a private tmux server, 160×45, as a user would. Keys
 *   go in through one tmux control-mode client (no process spawned per key, its own copy of the
 *   pane's output switched off); what glassbox writes to its terminal comes out through
 *   `pipe-pane` into a FIFO that this script reads and timestamps; the screen is read with
 *   `capture-pane` through the same control client.
 * - First frame and the million tokens (figures 1 and 3) run the binary in a pseudo-terminal of
 *   160×45 made by Bun (`Bun.spawn({ terminal })`), outside tmux, TERM=xterm-256color: it is drained
 *   as fast as it writes and parsed for nothing but the first frame's status line.
 * - Numbers from inside the binary come from its benchmark hook (src/tui/bench-hook.ts, inert
 *   unless GLASSBOX_BENCH_REPORT is set; GLASSBOX_BENCH_PREFILL fills the transcript): the
 *   first-frame time, event-loop lag (how late a 50 ms timer fires), full frames drawn, JS heap.
 *   They are printed as "inside the binary". CPU (utime+stime of the glassbox process only, also
 *   per thread) and RSS (VmRSS, peak VmHWM) come from /proc/PID.
 * - A config file raises model_options.max_tokens and idle_timeout_seconds and the limits
 *   deadline_seconds and max_transcript_chars, so the harness's own limits never stop a run.
 * - MB is 10^6 bytes, MiB 2^20.
 *
 * Figures:
 * 1. exec → first frame: from Bun.spawn until the first frame's status line reaches the terminal,
 *    median of --runs (default 10), and RSS 1 s after it, split into anonymous memory and pages
 *    mapped from files (the binary's code: shared, and more of it resident while the page cache
 *    holds a freshly built binary). For reference, the binary's own clock
 *    (performance.now() at the end of its first render) outside and inside a private tmux server
 *    (where blessed runs `tmux -V` at start).
 * 2. 2,000 tokens/s into a transcript already holding 0, 2,000 and 20,000 lines, --seconds
 *    (default 30) per length split into --rounds (default 3) streams of 10 s that go through the
 *    lengths in turn, pooled (other work on this shared machine then weighs on every length
 *    alike): CPU in cores over the stream (and by thread); bytes written to the terminal per 10 s
 *    of streaming, from the first token until the last is on screen; keystroke echo: an upper-case
 *    key typed every 200 ms while it streams (then erased), from the key sent to its echo in the
 *    pane's output, p50 and p99; how long after the server sent its last token that token is on
 *    the pane's screen, and whether the transcript pane then shows the tokens without a gap up to
 *    the last one (if it is not seen, what a capture by a tmux client of its own showed); peak RSS; from inside the binary frames per second, time in screen.render() and
 *    event-loop lag.
 * 3. --million tokens (default 1,000,000) through one session as fast as the TUI reads them (or at
 *    --million-rate tokens/s), after a first run of 20,000 tokens in the same session (what any
 *    first run pays once, its code paged in and compiled, is not growth over the million): the
 *    rate, RSS idle, after the first run, 3 s and 10 s after the million's run stopped (the TUI
 *    collects garbage 1 s after a run), peak RSS, JS heap. With --replies N, N more replies of the
 *    same size follow in the same session, with RSS 3 s after each: what a long session keeps per
 *    reply (the replies themselves, in the conversation), told apart from what any run pays once.
 * 4. Binary size against the compiled hello world (not with --exec, which runs another program).
 *
 * --exec runs COMMAND instead of dist/glassbox (split at spaces; the options are appended). It
 * must exec the program (same pid), since CPU and memory are read for that pid, and the program
 * must carry the benchmark hook. E.g., where the CPU goes while streaming:
 *   bun scripts/bench-tui.ts --only stream --exec "node_modules/.bin/bun --cpu-prof-md --cpu-prof-dir=/tmp/prof src/cli/bin.ts"
 * or, for the binary itself, a script that sets BUN_OPTIONS="--cpu-prof …" and execs it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { GLASSBOX_ENTRY, buildBinary, megabytes } from "./build.ts";
import { layout } from "../src/tui/layout.ts";
import { markdownToken, tokenText } from "./markdown-reply.ts";

const root = path.resolve(import.meta.dir, "..");
const COLS = 160;
const ROWS = 45;
/** The status line's key hints: the last thing the first frame draws. */
const FIRST_FRAME_MARK = "Ctrl-C quit";
/** The first run of figure 3, before the million. */
const WARM_UP_TOKENS = 20_000;
/* ------------------------------------------------------------------ fake llama.cpp server */

function serve(): void {
  const encoder = new TextEncoder();
  const envelope = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ choices: [{ finish_reason: finish, index: 0, delta }], created: 1796011079, id: "chatcmpl-benchtui", model: "models/tiny-32k.gguf", system_fingerprint: "b0-82bb485", object: "chat.completion.chunk" })}\n\n`;
  // One chunk per token, numbered from 1 so that the screen shows which arrived: `w1 `, `w2 `, …,
  // a newline after every 24th and after the last.
  const token = (i: number, count: number) => envelope({ content: markdownToken(i, count) });
  const say = (record: Record<string, unknown>) => process.stdout.write(JSON.stringify(record) + "\n");

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/health") return Response.json({ status: "ok" });
      if (url.pathname === "/props") return Response.json({ default_generation_settings: { n_ctx: 1_000_000_000 } });
      if (url.pathname !== "/v1/chat/completions") return new Response("not found", { status: 404 });
      const body = (await request.json()) as { messages: unknown[] };
      const match = /bench (\d+) (\d+)/.exec(JSON.stringify(body.messages.at(-1)));
      const count = Number(match?.[1] ?? 20);
      const rate = Number(match?.[2] ?? 0);
      let sent = 0;
      let started = 0;
      let done = false;
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (done) return;
          if (!started) {
            started = performance.now();
            say({ event: "stream_start", tokens: count, rate });
            controller.enqueue(encoder.encode(envelope({ role: "assistant", content: null })));
            return;
          }
          if (sent >= count) {
            done = true;
            const usage = { choices: [], created: 1796011079, id: "chatcmpl-benchtui", model: "models/tiny-32k.gguf", object: "chat.completion.chunk", usage: { completion_tokens: count, prompt_tokens: 100, total_tokens: count + 100 } };
            controller.enqueue(encoder.encode(envelope({}, "stop") + `data: ${JSON.stringify(usage)}\n\ndata: [DONE]\n\n`));
            controller.close();
            say({ event: "stream_end", tokens: count, seconds: (performance.now() - started) / 1000 });
            return;
          }
          // Paced: whatever is due by now (a few tokens a millisecond), else wait a millisecond.
          // Unpaced: 256 chunks a write, as a fast server's socket would deliver them.
          let due = Math.min(count, sent + 256);
          if (rate > 0) {
            for (;;) {
              due = Math.min(count, Math.floor(((performance.now() - started) * rate) / 1000));
              if (due > sent) break;
              await Bun.sleep(1);
            }
          }
          let batch = "";
          for (; sent < due; sent++) batch += token(sent, count);
          controller.enqueue(encoder.encode(batch));
        },
      });
      return new Response(stream, { headers: { Server: "llama.cpp", "X-Accel-Buffering": "no", "Content-Type": "text/event-stream" } });
    },
  });
  say({ event: "listening", port: server.port });
}

interface ServerHandle {
  port: number;
  /** Resolves on the next line the server prints with this event name; `at` is Date.now() on arrival. */
  next(event: string, timeoutMs: number): Promise<Record<string, any> & { at: number }>;
  stop(): void;
}

async function startServer(): Promise<ServerHandle> {
  const child = Bun.spawn([process.execPath, import.meta.path, "--server"], { stdout: "pipe", stderr: "inherit" });
  const waiting: Array<{ event: string; resolve: (record: any) => void }> = [];
  const seen: Array<Record<string, any>> = [];
  void (async () => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of child.stdout) {
      pending += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = pending.indexOf("\n")) >= 0) {
        const record = { ...JSON.parse(pending.slice(0, newline)), at: Date.now() };
        pending = pending.slice(newline + 1);
        const index = waiting.findIndex((w) => w.event === record.event);
        if (index >= 0) waiting.splice(index, 1)[0]!.resolve(record);
        else seen.push(record);
      }
    }
  })();
  const next = (event: string, timeoutMs: number) =>
    new Promise<Record<string, any> & { at: number }>((resolve, reject) => {
      const index = seen.findIndex((record) => record.event === event);
      if (index >= 0) return resolve(seen.splice(index, 1)[0] as any);
      const timer = setTimeout(() => reject(new Error(`the fake server sent no ${event} within ${timeoutMs} ms`)), timeoutMs);
      waiting.push({ event, resolve: (record) => (clearTimeout(timer), resolve(record)) });
    });
  const listening = await next("listening", 10_000);
  return { port: listening.port, next, stop: () => child.kill() };
}

/* ------------------------------------------------------------------ the TUI in a pty */

interface Tui {
  proc: Bun.Subprocess;
  pid: number;
  spawnedAt: number;
  workspace: string;
  reportFile: string;
  /** Resolves with performance.now() when `text` has appeared in the terminal output. */
  waitFor(text: string, timeoutMs: number): Promise<number>;
  type(keys: string): void;
  quit(): Promise<void>;
}

let binary = "";
/** What runs in the terminal: the binary, or with --exec a command of your own (e.g. a profiler). */
let command: string[] = [];
let configFile = "";

function launch(port: number, prefill: number): Tui {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-bench-tui-"));
  const reportFile = path.join(workspace, "bench-report.jsonl");
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith("TMUX")) env[key] = value;
  Object.assign(env, { TERM: "xterm-256color", LANG: "C.UTF-8", GLASSBOX_BENCH_REPORT: reportFile, GLASSBOX_BENCH_PREFILL: String(prefill) });
  let tail = "";
  const decoder = new TextDecoder();
  const watchers: Array<{ text: string; resolve: (at: number) => void }> = [];
  const spawnedAt = performance.now();
  const proc = Bun.spawn([...command, "--model", `llamacpp:http://127.0.0.1:${port}`, "--workspace", workspace, "--config", configFile], {
    cwd: workspace,
    env,
    terminal: {
      cols: COLS,
      rows: ROWS,
      name: "xterm-256color",
      data(_terminal, data) {
        const at = performance.now();
        tail = (tail + decoder.decode(data, { stream: true })).slice(-65536);
        if (!watchers.length) return;
        const text = plain(tail);
        for (let i = watchers.length - 1; i >= 0; i--) {
          if (text.includes(watchers[i]!.text)) watchers.splice(i, 1)[0]!.resolve(at);
        }
      },
    },
  });
  return {
    proc,
    pid: proc.pid,
    spawnedAt,
    workspace,
    reportFile,
    waitFor: (text, timeoutMs) =>
      new Promise((resolve, reject) => {
        if (plain(tail).includes(text)) return resolve(performance.now());
        const timer = setTimeout(() => reject(new Error(`"${text}" did not appear within ${timeoutMs} ms; the terminal's last output:\n${visible(tail.slice(-2000))}`)), timeoutMs);
        watchers.push({ text, resolve: (at) => (clearTimeout(timer), resolve(at)) });
      }),
    type: (keys) => void proc.terminal!.write(keys),
    async quit() {
      // Ctrl-C quits when no run is active; a second one forces.
      for (let attempt = 0; attempt < 2 && proc.exitCode === null; attempt++) {
        proc.terminal!.write("\x03");
        await Promise.race([proc.exited, Bun.sleep(1000)]);
      }
      if (proc.exitCode === null) proc.kill("SIGKILL");
      await proc.exited;
      proc.terminal!.close();
      fs.rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** blessed draws a single space between two runs of text as "cursor forward 1". */
function plain(output: string): string {
  return output.replace(/\x1b\[1C/g, " ");
}

function visible(text: string): string {
  return text.replace(/\x1b/g, "^[");
}

interface Report {
  event: string;
  ms: number;
  at: number;
  rss: number;
  lag?: number[];
  renders?: number;
  render_ms?: number;
  rows?: number;
  heap?: number;
}

function readReport(file: string): Report[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

async function waitForReport(file: string, event: string, timeoutMs: number): Promise<Report> {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await Bun.sleep(10)) {
    const found = readReport(file).find((record) => record.event === event);
    if (found) return found;
  }
  throw new Error(`the binary wrote no ${event} to ${file} within ${timeoutMs} ms (is the benchmark hook in src/tui/app.ts?)`);
}

/** The run's stop event, from its log in the workspace, and when this script first saw it; `nth` counts runs from 1. */
async function waitForStop(workspace: string, timeoutMs: number, nth = 1): Promise<{ status: string; gen_tokens: number; at: number }> {
  const runs = path.join(workspace, ".glassbox", "runs");
  for (const started = Date.now(); Date.now() - started < timeoutMs; await Bun.sleep(20)) {
    if (!fs.existsSync(runs)) continue;
    // Run ids sort by time: the nth run's log is the nth name.
    const name = fs.readdirSync(runs).sort()[nth - 1];
    if (name) {
      const text = fs.readFileSync(path.join(runs, name), "utf8");
      const at = text.lastIndexOf('{"kind":"stop"');
      const end = text.indexOf("\n", at);
      // The line may still be half-written: only a whole line counts.
      if (at >= 0 && end >= 0) return { ...JSON.parse(text.slice(at, end)), at: Date.now() };
    }
  }
  throw new Error(`the run did not stop within ${timeoutMs} ms`);
}

/* ------------------------------------------------------------------ /proc */

const CLK_TCK = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/** utime + stime of a process, in seconds. */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** utime + stime of each thread of a process, in seconds, by "name tid". */
function threadSeconds(pid: number): Map<string, number> {
  const threads = new Map<string, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      threads.set(`${name}#${tid}`, (Number(fields[11]) + Number(fields[12])) / CLK_TCK);
    } catch {
      // the thread ended
    }
  }
  return threads;
}

/** A memory line of /proc/PID/status, in bytes. */
function procMemory(pid: number, field: "VmRSS" | "VmHWM" | "RssAnon" | "RssFile"): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
  return match ? Number(match[1]) * 1024 : NaN;
}

/* ------------------------------------------------------------------ figures */

function percentile(values: number[], q: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

const median = (values: number[]) => percentile(values, 0.5);
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const mibMb = (bytes: number) => `${mib(bytes)} (${(bytes / 1e6).toFixed(1)} MB)`;
const mark = (ok: boolean) => (ok ? "met" : "MISSED");
const verdicts: Array<{ what: string; ok: boolean }> = [];
function target(what: string, ok: boolean): string {
  verdicts.push({ what, ok });
  return `target ${what}: ${mark(ok)}`;
}

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

async function firstFrames(port: number, runs: number): Promise<void> {
  const external: number[] = [];
  const internal: number[] = [];
  const rss: number[] = [];
  const anon: number[] = [];
  const file: number[] = [];
  for (let run = 0; run < runs; run++) {
    const tui = launch(port, 0);
    try {
      const drawn = await tui.waitFor(FIRST_FRAME_MARK, 10_000);
      external.push(drawn - tui.spawnedAt);
      internal.push((await waitForReport(tui.reportFile, "first_frame", 5000)).ms);
      await Bun.sleep(Math.max(0, drawn + 1000 - performance.now()));
      rss.push(procMemory(tui.pid, "VmRSS"));
      anon.push(procMemory(tui.pid, "RssAnon"));
      file.push(procMemory(tui.pid, "RssFile"));
    } finally {
      await tui.quit();
    }
  }
  const frame = median(external);
  console.log(`\n1. exec → first frame, outside tmux (pty from Bun.spawn, ${COLS}×${ROWS}), ${runs} runs`);
  console.log(`   median ${frame.toFixed(1)} ms (min ${Math.min(...external).toFixed(1)}, max ${Math.max(...external).toFixed(1)}); the binary's own clock at the end of its first render: median ${median(internal).toFixed(1)} ms`);
  console.log(`   ${target("first frame ≤ 60 ms", frame <= 60)}`);
  const idle = median(rss);
  console.log(`   RSS 1 s after the first frame: median ${mibMb(idle)} (min ${mib(Math.min(...rss))}, max ${mib(Math.max(...rss))})`);
  // Pages mapped from files (mostly the binary's code) are shared and depend on what the page
  // cache holds; anonymous memory is the process's own.
  console.log(`   of which anonymous ${mib(median(anon))}, mapped from the binary and libraries ${mib(median(file))}`);
  console.log(`   ${target("idle RSS ≤ 45 MB", idle <= 45e6)}`);
}

/** For reference: the binary's own first-frame clock inside a private tmux server. */
async function firstFramesInTmux(port: number, runs: number): Promise<void> {
  const tmux = Bun.which("tmux");
  if (!tmux) return console.log("   (tmux not found: no in-tmux reference)");
  const socket = `benchtui-${process.pid}`;
  const run = (...args: string[]) => Bun.spawnSync([tmux, "-L", socket, "-f", "/dev/null", ...args], { stderr: "pipe" });
  const times: number[] = [];
  // A session that outlives the measured ones: the server would otherwise exit after each and
  // could race the next new-session.
  run("new-session", "-d", "-s", "keep", "sleep 600");
  try {
    for (let i = 0; i < runs; i++) {
      const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-bench-tui-"));
      const report = path.join(workspace, "bench-report.jsonl");
      const line = `env TERM=screen-256color GLASSBOX_BENCH_REPORT=${report} ${command.join(" ")} --model llamacpp:http://127.0.0.1:${port} --workspace ${workspace} --config ${configFile}`;
      const started = run("new-session", "-d", "-s", `s${i}`, "-x", String(COLS), "-y", String(ROWS), line);
      if (started.exitCode !== 0) throw new Error(`tmux new-session: ${started.stderr.toString().trim()}`);
      try {
        times.push((await waitForReport(report, "first_frame", 10_000)).ms);
      } catch (error) {
        throw new Error(`${(error as Error).message}; the tmux pane shows:\n${run("capture-pane", "-p", "-t", `s${i}`).stdout.toString()}`);
      } finally {
        run("kill-session", "-t", `s${i}`);
        fs.rmSync(workspace, { recursive: true, force: true });
      }
    }
  } finally {
    run("kill-server");
  }
  console.log(`   (reference) inside a private tmux server (tmux -L ${socket}), the binary's own clock: median ${median(times).toFixed(1)} ms over ${runs} runs`);
}

/* ------------------------------------------------------------------ streaming, in tmux */

/**
 * A private tmux server for the streaming runs. Keys go in through one control-mode client
 * (`tmux -C`, no process spawned per key, its pane output switched off); what glassbox writes to
 * its terminal comes out through `pipe-pane` into a FIFO this script reads, timestamped on
 * arrival.
 */
class TmuxBench {
  readonly socket = `benchtui-stream-${process.pid}`;
  private control: Bun.Subprocess<"pipe", "pipe", "inherit"> | null = null;

  constructor(private readonly tmux: string) {
    // A session that outlives the measured ones, so the server stays up between them.
    this.run("new-session", "-d", "-s", "keep", "sleep 3600");
  }

  run(...args: string[]): string {
    const result = Bun.spawnSync([this.tmux, "-L", this.socket, "-f", "/dev/null", ...args], { stderr: "pipe" });
    if (result.exitCode !== 0) throw new Error(`tmux ${args[0]}: ${result.stderr.toString().trim()}`);
    return result.stdout.toString();
  }

  /** Replies still to come from the control client, oldest first (tmux answers in order). */
  private replies: Array<(lines: string[]) => void> = [];

  /**
   * A tmux command through the control client: no process spawned, so a key's timing is the
   * pane's and a capture takes a fraction of a millisecond. Resolves with the command's output.
   */
  command(line: string): Promise<string[]> {
    if (!this.control) {
      this.control = Bun.spawn([this.tmux, "-L", this.socket, "-f", "/dev/null", "-C", "attach", "-t", "keep"], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
      void this.readReplies(this.control.stdout);
      void this.command("refresh-client -f no-output");
    }
    const reply = new Promise<string[]>((resolve) => this.replies.push(resolve));
    this.control.stdin.write(line + "\n");
    this.control.stdin.flush();
    return reply;
  }

  /** The pane's screen as text, through the control client. */
  async capture(name: string): Promise<string> {
    return (await this.command(`capture-pane -p -t ${name}`)).join("\n");
  }

  /** Each command's output comes between `%begin` and `%end` (or `%error`); other `%` lines are notifications. */
  private async readReplies(stdout: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let pending = "";
    let block: string[] | null = null;
    // A block's last field is 1 for a command this client sent (the attach's own block has 0).
    let ours = false;
    for await (const chunk of stdout) {
      pending += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (block === null) {
          if (line.startsWith("%begin ")) {
            block = [];
            ours = line.endsWith(" 1");
          }
        } else if (line.startsWith("%end ") || line.startsWith("%error ")) {
          if (ours) this.replies.shift()?.(block);
          block = null;
        } else block.push(line);
      }
    }
  }

  close(): void {
    this.control?.kill();
    try {
      this.run("kill-server");
    } catch {
      // already gone
    }
  }
}

/** What glassbox wrote to its pane, as it arrives: bytes counted and text searched. */
class PaneOutput {
  bytes = 0;
  private tail = "";
  private readonly decoder = new TextDecoder();
  private readonly watchers: Array<{ test: (text: string) => boolean; resolve: (at: number) => void }> = [];
  private readonly done: Promise<void>;

  constructor(fifo: string) {
    const stream = fs.createReadStream(fifo);
    stream.on("data", (chunk: Buffer) => {
      const at = performance.now();
      this.bytes += chunk.length;
      const text = plain(this.decoder.decode(chunk, { stream: true }));
      // Only the newest output is searched: what a watcher waits for arrives after it started.
      this.tail = (this.tail + text).slice(-4096);
      for (let i = this.watchers.length - 1; i >= 0; i--) {
        if (this.watchers[i]!.test(this.tail)) this.watchers.splice(i, 1)[0]!.resolve(at);
      }
    });
    this.done = new Promise((resolve) => stream.on("close", resolve));
  }

  /** Resolves with performance.now() when output written from now on passes `test`; null on timeout. */
  next(test: (text: string) => boolean, timeoutMs: number): Promise<number | null> {
    this.tail = "";
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.watchers.splice(this.watchers.indexOf(watcher), 1);
        resolve(null);
      }, timeoutMs);
      const watcher = { test, resolve: (at: number) => (clearTimeout(timer), resolve(at)) };
      this.watchers.push(watcher);
    });
  }

  closed(): Promise<void> {
    return this.done;
  }
}

/** The key typed while the stream runs: upper case, which neither the tokens nor the panes use. */
const ECHO_KEY = "Z";
/** How long a keystroke may go unechoed before it counts as missed (and as this many ms). */
const ECHO_TIMEOUT_MS = 1000;

/** What one streamed run measured, kept raw so that rounds can be pooled. */
interface StreamRun {
  cpuSeconds: number;
  wallSeconds: number;
  /** Bytes glassbox wrote to its terminal from the stream's first token until its last was drawn. */
  bytes: number;
  /** Keystroke → its echo in the terminal output, ms. */
  echo: number[];
  /** The server's last token → that token on the pane's screen, ms (NaN: not within seconds). */
  lastTokenMs: number;
  /** When the last token was not seen: what a capture by a tmux client of its own then showed. */
  missed?: string;
  /** The pane after the stream: tokens shown in order up to the last one, and how many. */
  screen: { complete: boolean; shown: number; last: string };
  peakRss: number;
  /** From the binary's benchmark hook. */
  lag: number[];
  windows: number;
  renders: number;
  renderMs: number;
  rows: number;
  threads: Map<string, number>;
}

async function streamInTmux(bench: TmuxBench, server: ServerHandle, prefill: number, seconds: number, rate: number, index: number): Promise<StreamRun> {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-bench-tui-"));
  const reportFile = path.join(workspace, "bench-report.jsonl");
  const fifo = path.join(workspace, "pane.fifo");
  if (Bun.spawnSync(["mkfifo", fifo]).exitCode !== 0) throw new Error("mkfifo failed");
  const name = `s${index}`;
  const line = `exec env GLASSBOX_BENCH_REPORT=${reportFile} GLASSBOX_BENCH_PREFILL=${prefill} ${command.join(" ")} --model llamacpp:http://127.0.0.1:${server.port} --workspace ${workspace} --config ${configFile}`;
  bench.run("new-session", "-d", "-s", name, "-x", String(COLS), "-y", String(ROWS), "-c", workspace, line);
  const pid = Number(bench.run("display-message", "-p", "-t", name, "#{pane_pid}").trim());
  bench.run("pipe-pane", "-t", name, "-O", `cat > ${fifo}`);
  const output = new PaneOutput(fifo);
  try {
    await waitForReport(reportFile, "first_frame", 20_000);
    await Bun.sleep(1000);
    const tokens = Math.round(seconds * rate);
    void bench.command(`send-keys -t ${name} -l "bench ${tokens} ${rate}"`);
    void bench.command(`send-keys -t ${name} Enter`);
    const start = await server.next("stream_start", 10_000);
    const bytes0 = output.bytes;
    const cpu0 = cpuSeconds(pid);
    const threads0 = threadSeconds(pid);
    const ended = server.next("stream_end", seconds * 1000 + 30_000);
    // From the stream's end: the last token on the pane's screen, polled (a frame writes only the
    // cells that changed, so the output need not hold the token as one run of text).
    let missed: string | undefined;
    const drawn = ended.then(async (end) => {
      for (let tries = 0; tries < 5000; tries++) {
        if (tokensOnScreen(await bench.capture(name), tokens).last === tokenText(tokens)) return Math.max(0, Date.now() - end.at);
        await Bun.sleep(1);
      }
      // Which one failed, the screen or the control client's reading of it:
      const fresh = tokensOnScreen(bench.run("capture-pane", "-p", "-t", name), tokens);
      missed = `stream ${index}: ${tokenText(tokens)} not seen through the control client within ${((Date.now() - end.at) / 1000).toFixed(1)} s; a capture by a tmux client of its own then showed tokens up to ${fresh.last}`;
      return NaN;
    });
    // Keys typed like a person while it streams: one, its echo awaited, then erased.
    const echo: number[] = [];
    let streaming = true;
    void ended.then(() => (streaming = false));
    while (streaming) {
      const sent = performance.now();
      const seen = output.next((text) => text.includes(ECHO_KEY), ECHO_TIMEOUT_MS);
      void bench.command(`send-keys -t ${name} -l ${ECHO_KEY}`);
      const at = await seen;
      if (!streaming) break; // the stream ended meanwhile: that key was not typed while streaming
      echo.push(at === null ? ECHO_TIMEOUT_MS : at - sent);
      await Bun.sleep(80);
      void bench.command(`send-keys -t ${name} BSpace`);
      await Bun.sleep(120);
    }
    const end = await ended;
    const lastTokenMs = await drawn;
    const cpu1 = cpuSeconds(pid);
    const threads1 = threadSeconds(pid);
    const bytes = output.bytes - bytes0;
    const stop = await waitForStop(workspace, 30_000);
    if (stop.status !== "completed") throw new Error(`the run stopped ${stop.status}`);
    const peakRss = procMemory(pid, "VmHWM");
    const screen = tokensOnScreen(await bench.capture(name), tokens);
    await Bun.sleep(1100); // the sample that covers the end
    const samples = readReport(reportFile).filter((r) => r.event === "sample" && r.at - 1000 >= start.at && r.at <= end.at);
    const threads = new Map<string, number>();
    for (const [key, value] of threads1) {
      const thread = key.slice(0, key.lastIndexOf("#"));
      threads.set(thread, (threads.get(thread) ?? 0) + value - (threads0.get(key) ?? 0));
    }
    return {
      cpuSeconds: cpu1 - cpu0,
      wallSeconds: (end.at - start.at) / 1000,
      bytes,
      echo,
      lastTokenMs,
      missed,
      screen,
      peakRss,
      lag: samples.flatMap((sample) => sample.lag ?? []),
      windows: samples.length,
      renders: samples.reduce((sum, sample) => sum + (sample.renders ?? 0), 0),
      renderMs: samples.reduce((sum, sample) => sum + (sample.render_ms ?? 0), 0),
      rows: samples.at(-1)?.rows ?? NaN,
      threads,
    };
  } finally {
    await bench.command(`send-keys -t ${name} C-c`);
    await Bun.sleep(300);
    try {
      bench.run("kill-session", "-t", name);
    } catch {
      // glassbox quit and took its session with it
    }
    await Promise.race([output.closed(), Bun.sleep(2000)]);
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

/**
 * Which streamed tokens the transcript pane shows, in order: complete when they run without a gap
 * and end with the last one sent. Only the cells inside the pane's border are read: elsewhere the
 * screen holds other text that can look like a token (the workspace's random name in the status
 * line, such as `…-bench-tui-Qw4Ab`, once read as the last token, w4).
 */
export function tokensOnScreen(screen: string, count: number): { complete: boolean; shown: number; last: string } {
  const pane = layout(COLS, ROWS).transcript;
  const inside = screen
    .split("\n")
    .slice(pane.top + 1, pane.top + pane.height - 1)
    .map((row) => row.slice(pane.left + 1, pane.left + pane.width - 1))
    .join("\n");
  // A row starts right after the pane's border character, so no word boundary is asked for.
  const numbers = [...inside.matchAll(/(?<![0-9])w(\d+)(?![0-9])/g)].map((match) => Number(match[1]));
  const last = numbers.at(-1);
  const inOrder = numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1);
  return { complete: numbers.length > 0 && inOrder && last === count, shown: numbers.length, last: last === undefined ? "none" : tokenText(last) };
}

interface StreamFigures {
  cores: number;
  /** Terminal output per 10 s of streaming, bytes. */
  bytesPer10s: number;
  echoP50: number;
  echoP99: number;
  echoes: number;
  lastTokenMs: number;
  missed: string;
  complete: boolean;
  screens: string;
  peakRss: number;
  p50: number;
  p99: number;
  fps: number;
  frameMs: number;
  rows: number;
  threads: string;
}

/** The runs of one transcript length, pooled: CPU and bytes over all their seconds, percentiles over all their samples. */
function pooled(runs: StreamRun[]): StreamFigures {
  const wall = runs.reduce((sum, run) => sum + run.wallSeconds, 0);
  const lag = runs.flatMap((run) => run.lag);
  const echo = runs.flatMap((run) => run.echo);
  const renders = runs.reduce((sum, run) => sum + run.renders, 0);
  const threads = new Map<string, number>();
  for (const run of runs) for (const [name, cpu] of run.threads) threads.set(name, (threads.get(name) ?? 0) + cpu);
  return {
    cores: runs.reduce((sum, run) => sum + run.cpuSeconds, 0) / wall,
    bytesPer10s: (runs.reduce((sum, run) => sum + run.bytes, 0) / wall) * 10,
    echoP50: percentile(echo, 0.5),
    echoP99: percentile(echo, 0.99),
    echoes: echo.length,
    lastTokenMs: Math.max(...runs.map((run) => run.lastTokenMs)),
    missed: runs.flatMap((run) => run.missed ?? []).join("; "),
    complete: runs.every((run) => run.screen.complete),
    screens: runs.map((run) => `${run.screen.shown} tokens up to ${run.screen.last}${run.screen.complete ? "" : " (INCOMPLETE)"}`).join("; "),
    peakRss: Math.max(...runs.map((run) => run.peakRss)),
    p50: percentile(lag, 0.5),
    p99: percentile(lag, 0.99),
    fps: renders / Math.max(1, runs.reduce((sum, run) => sum + run.windows, 0)),
    frameMs: runs.reduce((sum, run) => sum + run.renderMs, 0) / Math.max(1, renders),
    rows: runs.at(-1)!.rows,
    threads: [...threads]
      .map(([name, cpu]) => [name, cpu / wall] as const)
      .filter(([, cores]) => cores >= 0.005)
      .sort((x, y) => y[1] - x[1])
      .map(([name, cores]) => `${name} ${(cores * 100).toFixed(1)}%`)
      .join(", "),
  };
}

/** One frame at the TUI's normal pace (src/tui/render-scheduler.ts): the last token must be drawn within it. */
const ONE_FRAME_MS = 33;

async function streaming(server: ServerHandle, seconds: number, rounds: number): Promise<void> {
  const tmux = Bun.which("tmux");
  if (!tmux) return console.log("\n2. streaming: tmux not found (apt-get install tmux); not measured");
  const rate = 2000;
  const lengths = [0, 2000, 20000];
  console.log(`\n2. streaming ${rate.toLocaleString("en")} tokens/s from the fake llama.cpp server over HTTP into the binary in tmux (${COLS}×${ROWS}), ${seconds} s per transcript length (0, 2,000, 20,000 lines already in it), ${rounds} interleaved rounds, pooled`);
  const bench = new TmuxBench(tmux);
  const runs = new Map<number, StreamRun[]>(lengths.map((n) => [n, []]));
  try {
    let index = 0;
    // Interleaved, so that a busy spell on this shared machine lands on every length alike.
    for (let round = 0; round < rounds; round++) {
      for (const prefill of lengths) runs.get(prefill)!.push(await streamInTmux(bench, server, prefill, seconds / rounds, rate, index++));
    }
  } finally {
    bench.close();
  }
  const rows = lengths.map((prefill) => pooled(runs.get(prefill)!));
  rows.forEach((f, i) => {
    console.log(`   N=${String(lengths[i]).padStart(6)}: CPU ${(f.cores * 100).toFixed(1).padStart(5)}% of a core · terminal output ${(f.bytesPer10s / 1e3).toFixed(0)} KB per 10 s · keystroke echo p50 ${f.echoP50.toFixed(1)} ms, p99 ${f.echoP99.toFixed(1)} ms (${f.echoes} keys) · last token drawn ${f.lastTokenMs.toFixed(1)} ms after the server sent it · peak RSS ${mibMb(f.peakRss)}`);
    console.log(`             on screen after the stream: ${f.screens}`);
    if (f.missed) console.log(`             last token not seen: ${f.missed}`);
    console.log(`             inside the binary (benchmark hook): ${f.fps.toFixed(1)} frames/s, ${f.frameMs.toFixed(2)} ms in screen.render() per frame, event-loop lag p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms · ${f.rows} rows`);
    console.log(`             CPU by thread: ${f.threads}`);
  });
  const worst = <K extends keyof StreamFigures>(key: K) => Math.max(...rows.map((r) => r[key] as number));
  console.log(`   ${target("CPU ≤ 0.12 of a core through the socket", worst("cores") <= 0.12)} (worst ${worst("cores").toFixed(3)})`);
  console.log(`   ${target("terminal output ≤ 400 KB per 10 s stream", worst("bytesPer10s") <= 400e3)} (worst ${(worst("bytesPer10s") / 1e3).toFixed(0)} KB)`);
  console.log(`   ${target(`every token on screen within one frame (${ONE_FRAME_MS} ms) of the stream's end`, rows.every((r) => r.complete) && worst("lastTokenMs") <= ONE_FRAME_MS)} (worst ${worst("lastTokenMs").toFixed(1)} ms)`);
  console.log(`   ${target("keystroke echo p99 ≤ 30 ms while streaming", worst("echoP99") <= 30)} (worst ${worst("echoP99").toFixed(1)} ms)`);
  console.log(`   ${target("peak RSS ≤ 80 MB while streaming", worst("peakRss") <= 80e6)} (worst ${mibMb(worst("peakRss"))})`);
  const [empty, , big] = [rows[0]!, rows[1]!, rows[2]!];
  const cpuRatio = big.cores / empty.cores;
  console.log(`   20,000 lines vs empty: CPU ×${cpuRatio.toFixed(2)}, terminal output ×${(big.bytesPer10s / empty.bytesPer10s).toFixed(2)}, echo p99 ×${(big.echoP99 / empty.echoP99).toFixed(2)}`);
  console.log(`   ${target("20,000-line CPU within 20% of empty", Math.abs(cpuRatio - 1) <= 0.2)}`);
}

async function million(server: ServerHandle, tokens: number, rate: number, replies: number): Promise<void> {
  const tui = launch(server.port, 0);
  try {
    await tui.waitFor(FIRST_FRAME_MARK, 20_000);
    await Bun.sleep(1500);
    const heapAt = () => readReport(tui.reportFile).filter((r) => r.event === "sample").at(-1)?.heap ?? NaN;
    const idle = procMemory(tui.pid, "VmRSS");
    // A first, short run pays what any first run pays (the code it runs paged in and compiled):
    // growth over the million tokens is counted from after it.
    tui.type(`bench ${WARM_UP_TOKENS} 0\r`);
    await waitForStop(tui.workspace, 60_000, 1);
    await Bun.sleep(3000); // the TUI collects 1 s after a run
    const before = procMemory(tui.pid, "VmRSS");
    const heapBefore = heapAt();
    tui.type(`bench ${tokens} ${rate}\r`);
    await server.next("stream_start", 10_000); // the warm-up's
    const start = await server.next("stream_start", 10_000);
    const cpu0 = cpuSeconds(tui.pid);
    const stop = await waitForStop(tui.workspace, 600_000, 2);
    const cpu1 = cpuSeconds(tui.pid);
    const seconds = (stop.at - start.at) / 1000;
    await Bun.sleep(3000);
    const after = procMemory(tui.pid, "VmRSS");
    const heapAfter = heapAt();
    await Bun.sleep(7000);
    const later = procMemory(tui.pid, "VmRSS");
    const peak = procMemory(tui.pid, "VmHWM");
    // Sample windows that overlap the stream (it may be shorter than a few seconds).
    const samples = readReport(tui.reportFile).filter((r) => r.event === "sample" && r.at > start.at && r.at - 1000 < stop.at);
    const lag = samples.flatMap((s) => s.lag ?? []);
    const growth = after - before;
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
    const pace = rate ? `at ${rate.toLocaleString("en")} tokens/s` : "as fast as the TUI reads them";
    console.log(`\n3. ${tokens.toLocaleString("en")} tokens through one session, ${pace} (run stopped ${stop.status}, ${stop.gen_tokens.toLocaleString("en")} tokens)`);
    console.log(`   ${seconds.toFixed(1)} s: ${Math.round(tokens / seconds).toLocaleString("en")} tokens/s, CPU ${((cpu1 - cpu0) / seconds).toFixed(2)} cores, lag p50 ${percentile(lag, 0.5).toFixed(1)} ms, p99 ${percentile(lag, 0.99).toFixed(1)} ms (saturated: no frame budget applies)`);
    console.log(`   RSS idle ${mib(idle)}, after a first run of ${WARM_UP_TOKENS.toLocaleString("en")} tokens ${mib(before)}; 3 s after the million's run stopped ${mib(after)} (+${mb(growth)}; +${mb(after - idle)} over idle); 10 s after ${mib(later)} (+${mb(later - before)}); peak ${mib(peak)}`);
    console.log(`   JS heap in use: ${mib(heapBefore)} before, ${mib(heapAfter)} 3 s after (+${mb(heapAfter - heapBefore)})`);
    console.log(`   ${target("RSS growth < 20 MB over the million tokens (3 s after, from after the first run)", growth < 20e6)}`);
    for (let reply = 1; reply <= replies; reply++) {
      tui.type(`bench ${tokens} ${rate}\r`);
      const next = await waitForStop(tui.workspace, 600_000, 2 + reply);
      await Bun.sleep(3000);
      const now = procMemory(tui.pid, "VmRSS");
      console.log(`   reply ${reply + 1} of ${tokens.toLocaleString("en")} tokens (stopped ${next.status}): RSS 3 s after ${mib(now)} (+${mb(now - before)} from after the first run; JS heap ${mib(heapAt())})`);
    }
  } finally {
    await tui.quit();
  }
}

function binarySize(binary: string, hello: string): void {
  const size = fs.statSync(binary).size;
  const helloSize = fs.statSync(hello).size;
  console.log(`\n4. binary ${megabytes(size)} (${size} bytes); compiled hello world ${megabytes(helloSize)}: +${((size - helloSize) / 1e6).toFixed(2)} MB`);
  // Missed on purpose since issue 16: the bytecode that buys ~50 ms of first frame is ~7 MB (docs/decisions.md, Startup).
  console.log(`   ${target("within 3 MB of hello world", size - helloSize < 3e6)}`);
}

async function main(): Promise<void> {
  const runs = option("--runs", 10);
  const seconds = option("--seconds", 30);
  const tokens = option("--million", 1_000_000);
  const dist = path.join(root, "dist");
  binary = path.join(dist, "glassbox");
  const hello = path.join(dist, "hello");
  if (!process.argv.includes("--no-build")) {
    await buildBinary(GLASSBOX_ENTRY, binary);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-hello-"));
    fs.writeFileSync(path.join(dir, "hello.ts"), 'console.log("hello world");\n');
    try {
      await buildBinary(path.join(dir, "hello.ts"), hello);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const exec = process.argv.indexOf("--exec");
  command = exec >= 0 ? process.argv[exec + 1]!.split(" ").filter(Boolean) : [binary];
  const onlyAt = process.argv.indexOf("--only");
  const only = onlyAt >= 0 ? process.argv[onlyAt + 1]!.split(",") : ["frame", "stream", "million"];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-bench-config-"));
  configFile = path.join(scratch, "bench.json");
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      model_options: { max_tokens: 2 * Math.max(tokens, 100_000), idle_timeout_seconds: 600 },
      limits: { deadline_seconds: 3600, max_transcript_chars: 1_000_000_000 },
    }),
  );
  const load = () => os.loadavg().map((n) => n.toFixed(2)).join(" ");
  console.log(`glassbox TUI benchmark · ${command.join(" ")} · ${os.cpus().length} cores · load average ${load()} · ${new Date().toISOString()}`);
  const server = await startServer();
  try {
    if (only.includes("frame")) await firstFrames(server.port, runs);
    if (only.includes("frame") && !process.argv.includes("--no-tmux")) await firstFramesInTmux(server.port, Math.min(runs, 5));
    if (only.includes("stream")) await streaming(server, seconds, option("--rounds", 3));
    if (only.includes("million") && tokens > 0) await million(server, tokens, option("--million-rate", 0), option("--replies", 0));
  } finally {
    server.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  if (exec >= 0) console.log(`\n4. binary size: not measured (--exec ran ${command[0]}, not ${path.relative(root, binary)})`);
  else binarySize(binary, hello);
  const missed = verdicts.filter((v) => !v.ok);
  console.log(`\n${verdicts.length - missed.length} of ${verdicts.length} targets met${missed.length ? `; missed: ${missed.map((v) => v.what).join("; ")}` : ""} (load average now ${load()})`);
}

if (process.argv.includes("--server")) serve();
else await main();
