import { appendFileSync, readFileSync, existsSync } from "node:fs";
import { redact } from "./redact.ts";
import { dirname } from "node:path";
import { glassboxFolder, makeGlassboxFolder } from "../platform/glassbox-folder.ts";

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
    this.append(`{"kind":"request","seq":${seq},"at":${JSON.stringify(this.stamp())},"url":${JSON.stringify(url)},"body":${body}}`);
    return seq;
  }

  response(entry: Omit<Extract<WireEntry, { kind: "response" }>, "kind" | "at">): void {
    this.append(JSON.stringify({ kind: "response", ...entry, at: this.stamp() }));
  }

  private stamp(): string {
    return new Date(this.now()).toISOString();
  }

  private append(line: string): void {
    // Made on first use, so a command that fails its checks leaves nothing behind.
    if (!this.ready) makeGlassboxFolder(dirname(this.path)), (this.ready = true);
    appendFileSync(this.path, redact(line) + "\n");
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
