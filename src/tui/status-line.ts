import type { SandboxInfo } from "../sandbox/sandbox.ts";
import { sandboxBadge } from "./sandbox-badge.ts";
import { safeTagged } from "./sanitize.ts";

export interface StatusFacts {
  /** The run's state as the person should read it ("streaming", "waiting for approval", "stopped: completed"). */
  state: string;
  queued: number;
  warning: string;
  model: string;
  workspace: string;
  sandbox: SandboxInfo;
}

/** The status line (tagged): where and how, the run's state, a warning or the main keys. */
export function statusLine(facts: StatusFacts): string {
  const state = facts.state + (facts.queued ? ` · ${facts.queued} queued` : "");
  const where = `${safeTagged(facts.model)} · ${safeTagged(shortPath(facts.workspace))} · ${sandboxBadge(facts.sandbox)}`;
  // A warning goes first, right after the state, so a narrow terminal clips the model and path, not the fix.
  return facts.warning
    ? ` {bold}${safeTagged(state)}{/bold} · {yellow-fg}${safeTagged(facts.warning)}{/yellow-fg} · ${where}`
    : ` ${where} · {bold}${safeTagged(state)}{/bold} · Enter send · Esc stop · Tab panes · ? help · Ctrl-C quit`;
}

function shortPath(path: string): string {
  const home = process.env.HOME;
  const shown = home && path.startsWith(home) ? "~" + path.slice(home.length) : path;
  return shown.length > 40 ? "…" + shown.slice(-39) : shown;
}
