import type { Config } from "../session/config.ts";
import { chooseSandbox } from "../sandbox/detect.ts";
import type { Finding } from "./doctor-finding.ts";

/** doctor's sandbox line: what confines the checks, or what is missing and how to get it. */
export function sandboxFinding(config: Config, env: Record<string, string | undefined> = process.env): Finding {
  const network = Object.values(config.checks).some((check) => check.network === true);
  const { info, missing } = chooseSandbox({ mode: config.sandbox, network, env });
  if (info.kind !== "none") return { ok: true, text: `sandbox: ${info.kind} · net ${network ? "on for some checks" : "off"} · secrets hidden (${info.reason})` };
  if (config.sandbox === "off") return { ok: true, text: "sandbox: off in the config; checks run unsandboxed" };
  return { ok: false, text: `sandbox: none, checks run UNSANDBOXED (${info.reason})`, fix: missing ?? undefined };
}
