import { readFileSync, existsSync } from "node:fs";
import { redact } from "./redact.ts";
import { dirname } from "node:path";
import { glassboxFolder, makeGlassboxFolder } from "../platform/glassbox-folder.ts";
import { appendLine } from "../platform/append-line.ts";
import { writeSoftly } from "../platform/disk-full.ts";

export function wireLogPath(workspaceRoot: string): string {
  return glassboxFolder(workspaceRoot, "wire.jsonl");
}

export type WireEntry =
  | { kind: "request"; seq: number; at: string; url: string; body: unknown }
  | {
      kind: "response";
      seq: number;
      at: string;
      url: string;
      status: number;
      ok: boolean;
      message?: { content: string; thinking: string; tool_calls: unknown[] };
      finish_reason?: string | null;
      usage?: { prompt_tokens: number; gen_tokens: number } | null;
      timings?: unknown;
      error?: string;
    };

/**
 * Every byte that crosses the model boundary: each request body is appended before it is sent,
 * each response (assembled message, usage, timings, finish reason, or the error) after it ends.
 */
export class WireLog {
  private seq = 0;
  private ready = false;

  constructor(
    readonly path: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Logs a request body (the exact text about to be sent); returns its sequence number. */
  request(url: string, body: string): number {
    const seq = ++this.seq;
    const logged = this.append(`{"kind":"request","seq":${seq},"at":${JSON.stringify(this.stamp())},"url":${JSON.stringify(url)},"body":${body}}`);
    // No request leaves unlogged: on a full disk the model call fails (and the run stops as disk_full).
    if (!logged) throw new Error("no space left on device for the wire log (.glassbox/wire.jsonl), so the request was not sent");
    return seq;
  }

  response(entry: Omit<Extract<WireEntry, { kind: "response" }>, "kind" | "at">): void {
    this.append(JSON.stringify({ kind: "response", ...entry, at: this.stamp() }));
  }

  private stamp(): string {
    return new Date(this.now()).toISOString();
  }

  /** Whether the line was written: on a full disk it is left out (never half written) and the run told. */
  private append(line: string): boolean {
    return writeSoftly(this.path, () => {
      // Made on first use, so a command that fails its checks leaves nothing behind.
      if (!this.ready) makeGlassboxFolder(dirname(this.path)), (this.ready = true);
      appendLine(this.path, redact(line));
    });
  }
}

export function readWireLog(path: string): WireEntry[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as WireEntry);
}

/** One line per entry, for `glassbox wire`. */
export function formatWireEntry(entry: WireEntry): string {
  if (entry.kind === "request") {
    const body = entry.body as { messages?: unknown[]; tools?: unknown[] };
    return `→ #${entry.seq} ${entry.at} POST ${entry.url} ${body.messages?.length ?? 0} messages, ${body.tools?.length ?? 0} tools, ${JSON.stringify(entry.body).length} bytes`;
  }
  if (!entry.ok) return `← #${entry.seq} ${entry.at} ${entry.status} ${entry.url} error: ${entry.error}`;
  const calls = entry.message?.tool_calls.length ?? 0;
  const usage = entry.usage ? `, ${entry.usage.prompt_tokens} prompt + ${entry.usage.gen_tokens} generated tokens` : "";
  return `← #${entry.seq} ${entry.at} ${entry.status} ${entry.url} ${entry.message?.content.length ?? 0} chars, ${calls} tool call(s), finish ${entry.finish_reason ?? "?"}${usage}`;
}
