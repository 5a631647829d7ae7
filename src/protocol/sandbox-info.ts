/** The ways a check can be confined (src/sandbox/ implements them). */
export const SANDBOX_KINDS = ["bwrap", "landlock", "seatbelt", "none"] as const;
export type SandboxKind = (typeof SANDBOX_KINDS)[number];

/** What ran, for run_start, the TUI badge and doctor. */
export interface SandboxInfo {
  kind: SandboxKind;
  /** Whether any configured check may reach the network. */
  network: boolean;
  secrets_hidden: boolean;
  /** Why this kind: what was found, or what is missing. */
  reason: string;
}
