import { appendFileSync, closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { appendLine } from "../platform/append-line.ts";
import { writeSoftly } from "../platform/disk-full.ts";
import { redact } from "../trace/redact.ts";
import { dirname, join } from "node:path";
import { glassboxFolder, makeGlassboxFolder } from "../platform/glassbox-folder.ts";
import { z } from "zod";
import { builtOnFirstParse } from "../protocol/zod-start.ts";
import { ownEvent, type AgentEvent } from "../protocol/events.ts";
import type { Message } from "../protocol/messages.ts";
import type { TodoItem } from "../tools/tool.ts";
import { newRunId } from "../trace/event-log.ts";
import { UsageError } from "../protocol/usage-error.ts";
import type { Clock } from "../protocol/clock.ts";
import { emptyContext, restoreContext, type ContextState } from "../core/context.ts";

/**
 * A saved session: `<workspace>/.glassbox/sessions/<session_id>.jsonl`, one JSON line each for
 * the header, every message of the conversation record (what the next request carries) and every
 * event the panes draw (what the transcript, verdicts, plan and meters show). Lines are only ever
 * appended, each in one write, so a killed glassbox leaves everything before its last line. On a
 * full disk a line is left out whole and the run is told (disk-full.ts): glassbox never crashes.
 */
export function sessionsFolder(workspaceRoot: string): string {
  return glassboxFolder(workspaceRoot, "sessions");
}

const VERSION = 1;

/** What the model was sent back for a call the session ended before answering. */
export const UNANSWERED = "Not run: the session ended before this call was answered.";

/** A saved session's lines; built on the first read, since most starts read none. */
const LineSchema = builtOnFirstParse(() => {
  const ToolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.unknown(), from_text: z.literal(true).optional() }).strict();
  const MessageSchema = z.discriminatedUnion("role", [
    z.object({ role: z.literal("system"), content: z.string() }).strict(),
    z.object({ role: z.literal("user"), content: z.string() }).strict(),
    z.object({ role: z.literal("assistant"), content: z.string(), thinking: z.string().optional(), tool_calls: z.array(ToolCallSchema).optional() }).strict(),
    z.object({ role: z.literal("tool"), tool_call_id: z.string(), name: z.string(), content: z.string() }).strict(),
  ]);

  /** The fields the panes read, for the events that carry them; other kinds need only a kind. */
  const DRAWN_FIELDS: Record<string, z.ZodType> = {
    run_start: z.looseObject({ run_id: z.string(), model: z.string(), task: z.string() }),
    model_delta: z.looseObject({ step: z.number(), channel: z.enum(["text", "thinking"]), text: z.string(), tokens: z.number() }),
    tool_call: z.looseObject({ step: z.number(), tool: z.string(), arguments: z.string(), decision: z.string(), reason: z.string(), result: z.string(), result_chars: z.number() }),
    stop: z.looseObject({ status: z.string(), reason: z.string(), steps: z.number(), tool_calls: z.number(), prompt_tokens: z.number(), gen_tokens: z.number() }),
    todo: z.looseObject({ items: z.array(z.object({ text: z.string(), status: z.string() })) }),
  };
  const EventSchema = z.looseObject({ kind: z.string() }).superRefine((event, context) => {
    const fields = DRAWN_FIELDS[event.kind]?.safeParse(event);
    if (fields && !fields.success) context.addIssue({ code: "custom", message: `a ${event.kind} event without ${fields.error.issues[0]!.path.join(".")}` });
  });

  return z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("session"), version: z.literal(VERSION), session_id: z.string(), started_at: z.iso.datetime(), workspace: z.string() }),
    z.object({ kind: z.literal("message"), at: z.iso.datetime(), message: MessageSchema }),
    z.object({ kind: z.literal("event"), at: z.iso.datetime(), run_id: z.string(), event: EventSchema }),
  ]);
});
type Line = z.infer<typeof LineSchema>;

/** One event as it was drawn, with when it happened (epoch milliseconds). */
export interface SavedEvent {
  at: number;
  runId: string;
  event: AgentEvent;
}

/** A session read back: the record to continue from, the events to draw again, and what could not be read. */
export interface LoadedSession {
  id: string;
  path: string;
  startedAt: number;
  /** When the last line was written. */
  lastAt: number;
  record: Message[];
  events: SavedEvent[];
  /** One sentence per line that could not be read, naming the line. */
  skipped: string[];
  /** Tool calls the session ended before answering, now answered as not run. */
  unanswered: number;
  /** Replies cut off while streaming, kept as far as they streamed. */
  cutOff: number;
}

/** What `glassbox sessions` shows for one session. */
export interface SessionSummary {
  id: string;
  startedAt: number;
  lastAt: number;
  model: string;
  runs: number;
  firstTask: string;
  /** The last run's stop status, or "unfinished" when glassbox ended while it ran. */
  lastStatus: string;
  skipped: number;
}

/** Reads a session file; never throws on its content: damaged lines are skipped and named. */
export function readSession(path: string, id: string): LoadedSession {
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  // After the last newline: "" when the file ends cleanly, else a line cut off mid-write.
  const tail = lines.pop()!;
  const skipped: string[] = [];
  const parsed: Line[] = [];
  lines.forEach((raw, index) => {
    if (raw === "") return;
    const line = parseLine(raw);
    if (typeof line === "string") skipped.push(`line ${index + 1}: ${line}`);
    else parsed.push(line);
  });
  if (tail !== "") skipped.push(`line ${lines.length + 1}: cut off mid-write (${Buffer.byteLength(tail)} bytes; glassbox ended while writing it)`);

  const header = parsed.find((line) => line.kind === "session");
  const times = parsed.map((line) => Date.parse(line.kind === "session" ? line.started_at : line.at));
  const mtime = statSync(path).mtimeMs;
  const { messages, cutOff } = conversation(parsed);
  const { record, unanswered, dropped } = answerEveryCall(messages);
  if (dropped) skipped.push(`${dropped} tool result(s) whose call was lost: left out of the conversation`);
  return {
    id,
    path,
    startedAt: header ? Date.parse(header.started_at) : (times[0] ?? mtime),
    lastAt: times.length ? times.reduce((a, b) => Math.max(a, b)) : mtime,
    record,
    events: parsed.flatMap((line) => (line.kind === "event" ? [{ at: Date.parse(line.at), runId: line.run_id, event: line.event as unknown as AgentEvent }] : [])),
    skipped,
    unanswered,
    cutOff,
  };
}

/**
 * The record in file order. A reply that was streaming when glassbox ended has deltas but no
 * message: it is kept as far as it streamed, as the loop keeps a reply cut by a stop.
 */
function conversation(lines: readonly Line[]): { messages: Message[]; cutOff: number } {
  const messages: Message[] = [];
  let streamed = "";
  let cutOff = 0;
  const keepStreamed = () => {
    if (streamed) messages.push({ role: "assistant", content: streamed }), cutOff++;
    streamed = "";
  };
  for (const line of lines) {
    // A sub-run's words are its own record's, which is not kept.
    if (line.kind === "event" && line.event.kind === "model_delta" && line.event.channel === "text" && line.event.sub_run === undefined) streamed += line.event.text as string;
    if (line.kind !== "message") continue;
    const message = line.message as Message;
    if (message.role === "user") keepStreamed();
    if (message.role === "assistant") streamed = "";
    messages.push(message);
  }
  keepStreamed();
  return { messages, cutOff };
}

function parseLine(raw: string): Line | string {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return "not JSON (damaged)";
  }
  const line = LineSchema.safeParse(json);
  if (line.success) return line.data;
  const issue = line.error.issues[0]!;
  return `not a session line (${issue.path.join(".") || "line"}: ${issue.message})`;
}

/**
 * Chat APIs refuse a conversation in which a tool call has no answer, or an answer has no call.
 * A session cut off while tools ran leaves such calls: each gets a "not run" answer right after
 * its batch, and answers without a call are left out. Derived again on every load, never saved.
 */
export function answerEveryCall(messages: readonly Message[]): { record: Message[]; unanswered: number; dropped: number } {
  const record: Message[] = [];
  let open: Array<{ id: string; name: string }> = [];
  let unanswered = 0;
  let dropped = 0;
  const closeBatch = () => {
    for (const call of open) record.push({ role: "tool", tool_call_id: call.id, name: call.name, content: UNANSWERED });
    unanswered += open.length;
    open = [];
  };
  for (const message of messages) {
    if (message.role === "tool") {
      const at = open.findIndex((call) => call.id === message.tool_call_id);
      if (at === -1) {
        dropped++;
        continue;
      }
      open.splice(at, 1);
      record.push(message);
      continue;
    }
    closeBatch();
    record.push(message);
    if (message.role === "assistant") open = (message.tool_calls ?? []).map(({ id, name }) => ({ id, name }));
  }
  closeBatch();
  return { record, unanswered, dropped };
}

/** The runs of a loaded session, summed up for the listing. */
export function summarize(session: LoadedSession): SessionSummary {
  const own = session.events.filter((saved) => ownEvent(saved.event));
  const starts = own.filter((saved) => saved.event.kind === "run_start").map((saved) => saved.event as Extract<AgentEvent, { kind: "run_start" }>);
  const last = own.findLast((saved) => saved.event.kind === "run_start" || saved.event.kind === "stop")?.event;
  return {
    id: session.id,
    startedAt: session.startedAt,
    lastAt: session.lastAt,
    model: starts.at(-1)?.model ?? "",
    runs: starts.length,
    firstTask: starts[0]?.task ?? "",
    lastStatus: last?.kind === "stop" ? last.status : last ? "unfinished" : "no runs",
    skipped: session.skipped.length,
  };
}

/** Every saved session of the workspace, most recently used first. */
export function listSessions(workspaceRoot: string): LoadedSession[] {
  const folder = sessionsFolder(workspaceRoot);
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => readSession(join(folder, name), name.slice(0, -".jsonl".length)))
    .sort((a, b) => b.lastAt - a.lastAt || (a.id < b.id ? 1 : -1));
}

/**
 * The conversation a run continues, saved as it goes. New sessions create their file at the
 * first run, so opening the TUI and quitting leaves nothing behind.
 */
export class SavedSession {
  /** The record the loop appends to; every message in it is in the file or derived on load. */
  readonly record: Message[];
  /** What the context manager compacted of the record, rebuilt from the saved events: a continued session's view is the same. */
  readonly context: ContextState;
  private written: number;
  private opened = false;
  /** Streamed text not yet written: deltas are joined until the next event or `flush()`. */
  private pending: { at: number; runId: string; event: Extract<AgentEvent, { kind: "model_delta" }> } | null = null;

  constructor(
    readonly id: string,
    readonly path: string,
    private readonly workspaceRoot: string,
    private readonly now: () => number,
    /** The session read back, when this continues one. */
    readonly restored: LoadedSession | null = null,
  ) {
    this.record = restored ? [...restored.record] : [];
    this.context = restored ? restoreContext(restored.events.map((saved) => saved.event)) : emptyContext();
    this.written = this.record.length;
  }

  /** A continued session's plan goes back into the checkpoint as it stood at the last todo event. */
  restorePlan(todo: TodoItem[]): void {
    const last = this.restored?.events.findLast((saved) => saved.event.kind === "todo")?.event;
    if (last?.kind === "todo") todo.splice(0, todo.length, ...(last.items as TodoItem[]));
  }

  /** Passes a run's events through, appending each new record message and each event as it goes. */
  async *save(runId: string, events: AsyncGenerator<AgentEvent>): AsyncGenerator<AgentEvent> {
    try {
      for await (const event of events) {
        this.write(runId, event);
        yield event;
      }
    } finally {
      this.flush();
      this.writeMessages();
    }
  }

  /**
   * Writes streamed text that is still pending. The TUI calls it before each frame, so whatever
   * reaches the screen is on disk first, at no more than one write a frame.
   */
  flush(): void {
    if (!this.pending) return;
    const { at, runId, event } = this.pending;
    this.pending = null;
    this.append({ kind: "event", at: iso(at), run_id: runId, event });
  }

  private write(runId: string, event: AgentEvent): void {
    if (event.kind === "model_delta") {
      const open = this.pending?.event;
      if (open && open.step === event.step && open.channel === event.channel) {
        // A copy of its own (made below) is extended in place: one string append a delta.
        open.text += event.text;
        open.tokens = event.tokens;
        return;
      }
      this.flush();
      this.pending = { at: this.now(), runId, event: { ...event } };
      return;
    }
    this.flush();
    this.writeMessages();
    this.append({ kind: "event", at: iso(this.now()), run_id: runId, event });
  }

  private writeMessages(): void {
    for (; this.written < this.record.length; this.written++) this.append({ kind: "message", at: iso(this.now()), message: this.record[this.written]! });
  }

  private append(line: object): void {
    writeSoftly(this.path, () => {
      if (!this.opened) this.open();
      appendLine(this.path, redact(JSON.stringify(line)));
    });
  }

  private open(): void {
    makeGlassboxFolder(dirname(this.path));
    if (!existsSync(this.path)) {
      const header = { kind: "session", version: VERSION, session_id: this.id, started_at: iso(this.now()), workspace: this.workspaceRoot };
      appendLine(this.path, JSON.stringify(header));
    } else if (!endsWithNewline(this.path)) {
      // A line cut off by a crash stays a line of its own: the next one must not be glued to it.
      appendFileSync(this.path, "\n");
    }
    this.opened = true;
  }
}

function endsWithNewline(path: string): boolean {
  const size = statSync(path).size;
  if (size === 0) return true;
  const fd = openSync(path, "r");
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

/** A time as people read it in listings and notes: `2026-12-01 09:50 UTC`. */
export function shortTime(ms: number): string {
  return `${new Date(ms).toISOString().replace("T", " ").slice(0, 16)} UTC`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** How the command line picks a session: `--continue`, `--session ID`, or neither (a new one). */
export interface SessionChoice {
  continue?: boolean;
  session?: string;
}

/**
 * The session a TUI or a run works in: the latest (`--continue`), a given one (`--session ID`),
 * or a new one. An id is looked up among the saved sessions, never turned into a path.
 */
export function chooseSession(workspaceRoot: string, choice: SessionChoice, now: () => number = Date.now): SavedSession {
  if (choice.continue && choice.session !== undefined) throw new UsageError("--continue and --session pick a session each; pass one of them");
  if (!choice.continue && choice.session === undefined) {
    const id = newRunId(now());
    return new SavedSession(id, join(sessionsFolder(workspaceRoot), `${id}.jsonl`), workspaceRoot, now);
  }
  const saved = listSessions(workspaceRoot);
  if (saved.length === 0) {
    throw new UsageError(`no saved session in ${workspaceRoot} to ${choice.continue ? "continue" : "open"}; every conversation in glassbox (the TUI or run) is saved, start one first`);
  }
  const found = choice.continue ? saved[0]! : saved.find((session) => session.id === choice.session);
  if (!found) {
    const shown = saved.slice(0, 5).map((session) => session.id);
    const more = saved.length > shown.length ? `, and ${saved.length - shown.length} more` : "";
    throw new UsageError(`no session "${choice.session}" in ${workspaceRoot}; saved sessions: ${shown.join(", ")}${more} (glassbox sessions lists them)`);
  }
  return new SavedSession(found.id, found.path, workspaceRoot, now, found);
}

/** The session a run or the TUI works in, with a continued session's plan back in the checkpoint. */
export function openSaved(session: { workspace: { root: string }; clock: Clock; checkpoint: { todo: TodoItem[] } }, choice: SessionChoice): SavedSession {
  const saved = chooseSession(session.workspace.root, choice, () => session.clock.now());
  saved.restorePlan(session.checkpoint.todo);
  return saved;
}

/** What the person is told about a session read back: what was skipped, what was answered for them. */
export function restoreNotes(session: LoadedSession): string[] {
  const notes = session.skipped.map((what) => `session ${session.id}: skipped ${what}`);
  if (summarize(session).lastStatus === "unfinished") notes.push(`session ${session.id}: its last run did not finish (glassbox ended while it ran)`);
  if (session.cutOff) notes.push(`session ${session.id}: a reply cut off when glassbox ended is kept as far as it streamed`);
  if (session.unanswered) notes.push(`session ${session.id}: ${session.unanswered} tool call(s) the session ended before answering are answered "not run"`);
  return notes;
}
