import type { Confinement } from "./rules.ts";

export const SANDBOX_KINDS = ["bwrap", "landlock", "seatbelt", "none"] as const;
export type SandboxKind = (typeof SANDBOX_KINDS)[number];
export const SANDBOX_MODES = ["auto", "require", "off"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** What ran, for run_start, the TUI badge and doctor. */
export interface SandboxInfo {
  kind: SandboxKind;
  /** Whether any configured check may reach the network. */
  network: boolean;
  secrets_hidden: boolean;
  /** Why this kind: what was found, or what is missing. */
  reason: string;
}

/** One way of confining a check: it turns the check's argv and environment into what runs it confined. */
export interface Sandbox {
  readonly kind: SandboxKind;
  command(argv: string[], rules: Confinement, env: Record<string, string>): Launch;
}

export interface Launch {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}
