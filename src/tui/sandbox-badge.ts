import type { SandboxInfo } from "../sandbox/sandbox.ts";
import { safeTagged } from "./sanitize.ts";
import { READ_ONLY_ASKS } from "../core/policy.ts";

/** The status line's sandbox badge: calm when checks are confined, red and loud when they are not. */
export function sandboxBadge(info: SandboxInfo): string {
  if (info.kind === "none") return `{white-fg}{red-bg}{bold} UNSANDBOXED: ${safeTagged(info.reason)} {/bold}{/red-bg}{/white-fg} · ${READ_ONLY_ASKS}`;
  return `sandbox: ${info.kind} · net ${info.network ? "on" : "off"}`;
}
