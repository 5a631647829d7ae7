import type { z } from "zod";
import type { Workspace } from "../files/workspace.ts";
import type { Clock } from "../protocol/clock.ts";
import type { ChangeJournal } from "../files/journal.ts";
import type { WorkspaceChange } from "../protocol/events.ts";
import { ArgumentCharsSchema } from "../protocol/argument-limits.ts";
import { PARSE_ONCE } from "../protocol/zod-start.ts";

export { Refusal, ToolFailure } from "../protocol/refusal.ts";

/** Plan state kept by the run, not by the conversation. */
export interface TodoItem {
  text: string;
  status: "pending" | "in_progress" | "done";
}

export interface ToolContext {
  workspace: Workspace;
  clock: Clock;
  /** Ends a running tool when the run is interrupted or the deadline passes. */
  signal: AbortSignal;
  todo: TodoItem[];
  /** Where the run saves what a write replaces, for `glassbox undo`; none: writes are not undoable. */
  journal?: ChangeJournal;
  /** The run's sub-run for `explore`: its answer (or why it stopped) as the result. Absent where runs cannot start one (inside a sub-run). */
  explore?: (question: string) => Promise<string>;
}

/** What preflight decided a call would do, before anyone is asked to approve it. */
export interface ToolPlan {
  /** What `TOOL:GLOB` rules match against: the path argument (workspace-relative) or the check name. */
  target?: string;
  /** For a call on more than one path (move_file's from and to): the paths rules match instead of `target`. */
  paths?: string[];
  /** For calls that change a file: the file before and after, for the person approving it. */
  change?: FileChange;
  execute(): Promise<string>;
  /** Set by execute for checks: whether the check passed (the verification gate reads it). */
  succeeded?: boolean;
  /**
   * The allow rule a person's "always" adds for the session. Absent: the tool as a whole; null:
   * none can be made (the answer counts as one yes).
   */
  sessionRule?: string | null;
  /** Facts for the person approving, one line each (a command's folder, sandbox, undo). */
  details?: string[];
  /** Why this call is asked even when a rule that may write allows it (a command whose changes cannot be journaled here). */
  askAnyway?: string;
  /** Set by the checkpoint before execute: a read-only rule allowed the call, so it must not change the workspace. */
  readOnly?: boolean;
  /** Set by execute for commands and checks: the workspace files they changed, for the tool_call event. */
  changes?: CommandChanges;
}

/** What a command or check changed in the workspace: journaled changes, and the git-ignored files counted. */
export interface CommandChanges {
  changes: WorkspaceChange[];
  ignored: number;
}

export interface FileChange {
  path: string;
  /** For a move: the path the file leaves (`path` is where it goes). */
  from?: string;
  /** null: the file does not exist yet. */
  before: string | null;
  /** null: the file is removed. */
  after: string | null;
}

/** A tool whose arguments are described by someone else's JSON Schema (an MCP server's). */
export interface ExternalSchema<Args> {
  /** Shown to the model as the tool's parameters. */
  parameters: Record<string, unknown>;
  /** Checks an argument object against that schema; throws Refusal naming the argument. */
  validate(value: Record<string, unknown>): Args;
}

/** What a person approving a call to someone else's tool needs to see, and what "always" is bound to. */
export interface ApprovalContext {
  why: string;
  /** The text the model read about the tool. */
  description: string;
  /** "Always" holds only while the tool's definition keeps this digest. */
  digest: string;
}

export interface Tool<Args = any> {
  name: string;
  /** The text the model reads. */
  description: string;
  schema: z.ZodType<Args>;
  /** Set for tools with a JSON Schema of their own: it replaces `schema` for declaring and validating. */
  external?: ExternalSchema<Args>;
  /** Changes something: a person (or an allow rule) must approve each call. */
  needsApproval: boolean;
  approval?: ApprovalContext;
  /** The most characters its arguments may take as JSON text (ARGUMENT_LIMITS.max_chars when absent): a tool that takes whole files needs more. */
  maxArgumentChars?: number;
  /** Preflight: resolves and confines paths, checks what can be checked without a person. Throws Refusal. */
  plan(args: Args, context: ToolContext): Promise<ToolPlan>;
}

/** The cap of the tools that carry a file's text (write_file, edit_file): a million characters of it, with room for JSON's escapes. */
export const FILE_TEXT_ARGUMENT_CHARS = 2_000_000;

export function defineTool<Args>(tool: Tool<Args>): Tool<Args> {
  if (tool.maxArgumentChars !== undefined) ArgumentCharsSchema.parse(tool.maxArgumentChars, PARSE_ONCE);
  return tool;
}
