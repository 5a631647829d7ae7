import type { Confinement } from "./rules.ts";
import type { SandboxKind } from "../protocol/sandbox-info.ts";

export { SANDBOX_KINDS, type SandboxInfo, type SandboxKind } from "../protocol/sandbox-info.ts";

export const SANDBOX_MODES = ["auto", "require", "off"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

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
