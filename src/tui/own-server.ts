import type { GgufModel } from "../model/gguf-model.ts";
import type { LlamaServerProcess } from "../model/llama-server-process.ts";
import { startOwnServer, type Session } from "../session/session.ts";
import { sanitize } from "./sanitize.ts";

/** What the TUI lends the server's lifecycle: a transcript line and a redraw. */
export interface OwnServerHost {
  say(text: string): void;
  redraw(): void;
}

/** The server's part of the status line; `running` sits with the model, the others go first, where they are read. */
export interface ServerStatus {
  tone: "loading" | "running" | "ended";
  text: string;
}

type Phase =
  | { kind: "loading"; line: string }
  | { kind: "running"; server: LlamaServerProcess; loadMs: number }
  /** It did not start (a retry may work: the next message tries again). */
  | { kind: "failed"; text: string }
  /** It died: not started again behind the person's back (its model's requests say why); picking the model again starts it. */
  | { kind: "died"; text: string };

/**
 * The llama-server glassbox runs for a gguf: model, as the TUI runs it: started before the first
 * run (and when such a model is picked) with the loading shown, watched while it runs (a death is
 * said, and picking the model again starts it anew), stopped on the way out.
 */
export class OwnServer {
  /** The model the phase is about: the session's ownServer when the phase was set. */
  private model: GgufModel | null = null;
  private phase: Phase | null = null;
  private starting: Promise<boolean> | null = null;
  private loading: AbortController | null = null;

  constructor(
    private readonly session: Session,
    private readonly host: OwnServerHost,
  ) {}

  /**
   * Starts the session's gguf: server unless it runs or died. Null when there is nothing to wait
   * for; else resolves true once it runs, false when it did not start.
   */
  ensure(): Promise<boolean> | null {
    const model = this.session.ownServer;
    // Another model was chosen (or the same one again, a new client): a load under way for the one before is abandoned.
    if (model !== this.model) this.forget();
    if (!model || model.running || this.phase?.kind === "died") return null;
    if (this.starting) return this.starting;
    this.model = model;
    const starting = (this.starting = this.start(model).finally(() => {
      if (this.starting === starting) this.starting = null;
    }));
    return starting;
  }

  status(): ServerStatus | null {
    if (!this.phase || this.model !== this.session.ownServer) return null;
    switch (this.phase.kind) {
      case "loading":
        return { tone: "loading", text: `loading model…${this.phase.line ? ` ${this.phase.line}` : ""}` };
      case "running":
        return { tone: "running", text: `llama-server pid ${this.phase.server.pid} · :${this.phase.server.port} · loaded in ${(this.phase.loadMs / 1000).toFixed(1)}s` };
      case "failed":
      case "died":
        return { tone: "ended", text: this.phase.text };
    }
  }

  /** Quitting: a load under way is abandoned (its server stopped) and a running server stopped; resolves once it is gone. */
  async stop(): Promise<void> {
    this.loading?.abort();
    await this.starting;
    await this.session.ownServer?.stop();
  }

  private async start(model: GgufModel): Promise<boolean> {
    const loading = (this.loading = new AbortController());
    const current = () => this.model === model && !loading.signal.aborted;
    this.show({ kind: "loading", line: "" });
    try {
      const started = await startOwnServer(this.session, (line) => current() && this.show({ kind: "loading", line: sanitize(line) }), loading.signal);
      const server = model.running;
      if (!current() || !server) return false;
      this.show({ kind: "running", server, loadMs: started?.load_ms ?? 0 });
      void server.exited.then(() => this.onExit(model, server));
      return true;
    } catch (error) {
      if (!current()) return false;
      const reason = sanitize((error as Error).message);
      this.show({ kind: "failed", text: `llama-server did not start: ${reason}` });
      this.host.say(`llama-server did not start: ${reason}`);
      return false;
    }
  }

  /** A server that ends while it is still the session's, and nobody stopped it, died: said where the person looks. */
  private onExit(model: GgufModel, server: LlamaServerProcess): void {
    if (server.stoppedByUs || this.model !== model || this.phase?.kind !== "running" || this.phase.server !== server) return;
    const ended = `llama-server ${server.describeExit()}`;
    const last = `its log's last line: ${sanitize(server.lastLines(1)[0] ?? "(empty)")}`;
    // The hint before the log's line, which a narrow status line clips.
    this.show({ kind: "died", text: `${ended} (m, then the same model, starts it again); ${last}` });
    this.host.say(`${ended}; ${last}. To start it again, pick the model again: m on an empty input line, or /model.`);
  }

  private forget(): void {
    this.loading?.abort();
    this.starting = null;
    this.model = null;
    this.phase = null;
  }

  private show(phase: Phase): void {
    this.phase = phase;
    this.host.redraw();
  }
}
