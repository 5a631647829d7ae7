import type { SandboxInfo } from "../sandbox/sandbox.ts";
import { sandboxBadge } from "./sandbox-badge.ts";
import { safeTagged } from "./sanitize.ts";
import { paint } from "./theme.ts";
import { tildePath } from "../platform/home.ts";
import { basename } from "node:path";
import type { ServerStatus } from "./own-server.ts";
import { INSECURE_TLS_BADGE } from "../model/access.ts";

export interface StatusFacts {
  /** The run's state as the person should read it ("streaming", "waiting for approval", "stopped: completed"). */
  state: string;
  queued: number;
  warning: string;
  model: string;
  workspace: string;
  sandbox: SandboxInfo;
  /** The llama-server glassbox runs for a gguf: model: loading, running or ended; null for other models. */
  server?: ServerStatus | null;
  /** --insecure-tls: shown beside the model for as long as it is on. */
  insecureTls?: boolean;
  /** The model profile applied (its file); named beside the model. */
  profile?: string | null;
}

/** The status line (tagged): where and how, the run's state, a warning or the main keys. */
export function statusLine(facts: StatusFacts): string {
  const state = facts.state + (facts.queued ? ` · ${facts.queued} queued` : "");
  const { server } = facts;
  const running = server?.tone === "running" ? ` · ${safeTagged(server.text)}` : "";
  const insecure = facts.insecureTls ? ` · ${paint("red", INSECURE_TLS_BADGE)}` : "";
  const profile = facts.profile ? ` · profile ${safeTagged(basename(facts.profile, ".json"))}` : "";
  const where = `${safeTagged(shortModel(facts.model))}${profile}${insecure}${running} · ${safeTagged(shortPath(facts.workspace))} · ${sandboxBadge(facts.sandbox)}`;
  // A warning, or a server loading or ended, goes first, right after the state, so a narrow terminal clips the model and path, not the fix.
  const notices = [
    ...(facts.warning ? [paint("yellow", safeTagged(facts.warning))] : []),
    ...(server && server.tone !== "running" ? [paint(server.tone === "loading" ? "cyan" : "red", safeTagged(server.text))] : []),
  ];
  return notices.length
    ? ` {bold}${safeTagged(state)}{/bold} · ${notices.join(" · ")} · ${where}`
    : ` ${where} · {bold}${safeTagged(state)}{/bold} · Enter send · Esc stop · Tab panes · ? help · Ctrl-C quit`;
}

function shortPath(path: string): string {
  const shown = tildePath(path, process.env.HOME);
  return shown.length > 40 ? "…" + shown.slice(-39) : shown;
}

/** A model named by its file (gguf:PATH, scripted:PATH, a bare path): the path shortened as the workspace's is, so the server's facts fit too. */
function shortModel(name: string): string {
  const colon = name.startsWith("/") ? -1 : name.indexOf(":");
  const path = name.slice(colon + 1);
  return path.startsWith("/") ? name.slice(0, colon + 1) + shortPath(path) : name;
}
