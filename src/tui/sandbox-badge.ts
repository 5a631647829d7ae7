import type { SandboxInfo } from "../sandbox/sandbox.ts";
import { safeTagged } from "./sanitize.ts";

/** Why git status/diff/log/show ask with no sandbox: nothing can hold the workspace read-only for them. */
export const READ_ONLY_ASKS = "git status/diff/log/show ask (no read-only sandbox)";

/** The status line's sandbox badge: calm when checks are confined, red and loud when they are not. */
export function sandboxBadge(info: SandboxInfo): string {
  if (info.kind === "none") return `{white-fg}{red-bg}{bold} UNSANDBOXED: ${safeTagged(info.reason)} {/bold}{/red-bg}{/white-fg} · ${READ_ONLY_ASKS}`;
  return `sandbox: ${info.kind} · net ${info.network ? "on" : "off"}`;
}
