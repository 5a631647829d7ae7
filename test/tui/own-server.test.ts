/**
 * The TUI's side of a gguf: model's llama-server (src/tui/own-server.ts): what the status line
 * says while it loads, while it runs and once it died, what the transcript is told, and when it
 * is (and is not) started again. A stand-in model plays the server; the real one is in
 * test/e2e/gguf.test.ts.
 */
import { expect, test } from "bun:test";
import type { GgufModel } from "../../src/model/gguf-model.ts";
import { ServerStartError, type LoadProgress } from "../../src/model/llama-server-process.ts";
import type { Session } from "../../src/session/session.ts";
import { OwnServer } from "../../src/tui/own-server.ts";
import { statusLine } from "../../src/tui/status-line.ts";

/** A server process as OwnServer reads it: pid, port, its exit and its log's tail. */
class StandInProcess {
  exit: { code: number | null; signal: string | null } | null = null;
  stoppedByUs = false;
  readonly exited: Promise<unknown>;
  private ended!: () => void;

  constructor(readonly pid: number, readonly port: number, private readonly log: string[]) {
    this.exited = new Promise<void>((resolve) => (this.ended = resolve));
  }

  describeExit(): string {
    return this.exit?.signal ? `was killed by ${this.exit.signal}` : `exited with code ${this.exit?.code}`;
  }

  lastLines(count = 1): string[] {
    return this.log.slice(-count);
  }

  end(signal: string, byUs = false): void {
    this.stoppedByUs = byUs;
    this.exit = { code: null, signal };
    this.ended();
  }
}

/** A gguf: model whose start is released by the test: `load(lines)` says the lines while loading, then `ready()` or `fail(reason)`. */
class StandInModel {
  process: StandInProcess | null = null;
  starts = 0;
  signal: AbortSignal | null = null;
  private progress: LoadProgress = () => {};
  private settle: { resolve: (value: unknown) => void; reject: (error: Error) => void } | null = null;

  get running(): StandInProcess | null {
    return this.process && !this.process.exit ? this.process : null;
  }

  start(onProgress: LoadProgress = () => {}, signal?: AbortSignal): Promise<unknown> {
    this.starts++;
    this.progress = onProgress;
    this.signal = signal ?? null;
    return new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
      signal?.addEventListener("abort", () => reject(new ServerStartError("stopped while the model was loading")), { once: true });
    });
  }

  load(...lines: string[]): void {
    for (const line of lines) this.progress(line);
  }

  ready(pid = 4242, port = 41234): StandInProcess {
    this.process = new StandInProcess(pid, port, ["srv  update_slots: all slots are idle"]);
    this.settle!.resolve({ command: ["llama-server"], pid, port, load_ms: 1234, log: "/ws/.glassbox/llama-server.log" });
    return this.process;
  }

  fail(reason: string): void {
    this.settle!.reject(new ServerStartError(reason));
  }

  async stop(): Promise<void> {
    this.process?.end("SIGTERM", true);
  }
}

function setUp() {
  const notes: string[] = [];
  const session = { ownServer: new StandInModel() as unknown as GgufModel, pending: [] as unknown[], workspace: { root: "/ws" } };
  const server = new OwnServer(session as unknown as Session, { say: (text) => void notes.push(text), redraw: () => {} });
  const model = () => session.ownServer as unknown as StandInModel;
  return { session, server, model, notes };
}

const tick = () => Bun.sleep(0);

test("loading: the log's latest line; loaded: pid, port and load time, and a server_start event for the next run", async () => {
  const { session, server, model } = setUp();
  const started = server.ensure()!;
  expect(server.status()).toEqual({ tone: "loading", text: "loading model…" });
  model().load("llama_model_loader: loaded meta data with 26 key-value pairs", "load_tensors: loading model tensors");
  expect(server.status()).toEqual({ tone: "loading", text: "loading model… load_tensors: loading model tensors" });
  expect(server.ensure()).toBe(started);
  model().ready();
  expect(await started).toBe(true);
  expect(server.status()).toEqual({ tone: "running", text: "llama-server pid 4242 · :41234 · loaded in 1.2s" });
  expect(session.pending).toEqual([expect.objectContaining({ kind: "server_start", pid: 4242, port: 41234, log: ".glassbox/llama-server.log" })]);
  // Running: nothing for a run to wait for.
  expect(server.ensure()).toBeNull();
  expect(model().starts).toBe(1);
});

test("a death is said in the status line and the transcript, and the server is not started again behind the person's back; picking the model again starts it", async () => {
  const { session, server, model, notes } = setUp();
  const first = server.ensure()!;
  model().ready();
  await first;
  model().process!.end("SIGKILL");
  await tick();
  expect(server.status()).toEqual({ tone: "ended", text: "llama-server was killed by SIGKILL (m, then the same model, starts it again); its log's last line: srv  update_slots: all slots are idle" });
  expect(notes).toEqual(["llama-server was killed by SIGKILL; its log's last line: srv  update_slots: all slots are idle. To start it again, pick the model again: m on an empty input line, or /model."]);
  expect(server.ensure()).toBeNull();
  expect(model().starts).toBe(1);

  // The picker's choice is a new client for the same file (session.chooseModel).
  session.ownServer = new StandInModel() as unknown as GgufModel;
  const again = server.ensure()!;
  expect(server.status()!.tone).toBe("loading");
  model().ready(5151, 42000);
  expect(await again).toBe(true);
  expect(server.status()!.text).toBe("llama-server pid 5151 · :42000 · loaded in 1.2s");
});

test("a server stopped on purpose (quit, another model) is no death", async () => {
  const { server, model, notes } = setUp();
  const started = server.ensure()!;
  model().ready();
  await started;
  await server.stop();
  await tick();
  expect(notes).toEqual([]);
  expect(server.status()!.tone).toBe("running");
});

test("quitting while it loads abandons the load: its start is aborted, and nothing is said", async () => {
  const { server, model, notes } = setUp();
  const started = server.ensure()!;
  model().load("llama_model_loader: loading");
  await server.stop();
  expect(model().signal!.aborted).toBe(true);
  expect(await started).toBe(false);
  expect(notes).toEqual([]);
});

test("a start that fails is said; the next message tries again", async () => {
  const { server, model, notes } = setUp();
  const started = server.ensure()!;
  model().fail("llama-server exited with code 1 before it was ready: error loading model (log: .glassbox/llama-server.log)");
  expect(await started).toBe(false);
  expect(server.status()).toEqual({ tone: "ended", text: "llama-server did not start: llama-server exited with code 1 before it was ready: error loading model (log: .glassbox/llama-server.log)" });
  expect(notes).toEqual(["llama-server did not start: llama-server exited with code 1 before it was ready: error loading model (log: .glassbox/llama-server.log)"]);
  expect(server.ensure()).not.toBeNull();
  expect(model().starts).toBe(2);
});

test("no gguf: model, no server and nothing on the status line", () => {
  const { session, server } = setUp();
  (session as { ownServer: unknown }).ownServer = null;
  expect(server.ensure()).toBeNull();
  expect(server.status()).toBeNull();
});

test("the status line: a running server sits with the model; a loading or ended one goes first, where a narrow terminal keeps it", () => {
  const facts = { state: "idle", queued: 0, warning: "", model: "gguf:/m/tiny.gguf", workspace: "/ws", sandbox: { kind: "none", reason: "" } as never };
  const plain = (text: string) => text.replace(/\{\/?[a-z-]+\}/g, "");
  expect(plain(statusLine({ ...facts, server: { tone: "running", text: "llama-server pid 4242 · :41234 · loaded in 1.2s" } }))).toStartWith(" gguf:/m/tiny.gguf · llama-server pid 4242 · :41234 · loaded in 1.2s · /ws · ");
  expect(plain(statusLine({ ...facts, server: { tone: "loading", text: "loading model… load_tensors: loading" } }))).toStartWith(" idle · loading model… load_tensors: loading · gguf:/m/tiny.gguf · /ws");
  expect(plain(statusLine({ ...facts, warning: "stopping the run…", server: { tone: "ended", text: "llama-server was killed by SIGKILL" } }))).toStartWith(" idle · stopping the run… · llama-server was killed by SIGKILL · gguf:");
  // A long path is shortened as the workspace's is, so the server's facts fit too.
  const long = `gguf:/home/someone/.lmstudio/models/lmstudio-community/Qwen2.5-7B-Instruct-GGUF/q4.gguf`;
  expect(plain(statusLine({ ...facts, model: long }))).toStartWith(" gguf:…munity/Qwen2.5-7B-Instruct-GGUF/q4.gguf · /ws");
});
