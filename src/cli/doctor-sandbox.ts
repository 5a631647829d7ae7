import type { Config } from "../session/config.ts";
import { chooseSandbox } from "../sandbox/detect.ts";
import { HIDDEN_IN_HOME } from "../sandbox/rules.ts";
import type { Finding } from "./doctor-finding.ts";

/** What a check or command cannot see, said by doctor: the home's secrets, and every `.env`/`.env.*` at any depth of the workspace. */
export const HIDDEN_SENTENCE = `checks and commands cannot see ${HIDDEN_IN_HOME.map((name) => `~/${name}`).join(", ")}, nor .env or .env.* at any depth of the workspace`;

/** doctor's sandbox line: what confines the checks, or what is missing and how to get it. */
export function sandboxFinding(config: Config, env: Record<string, string | undefined> = process.env): Finding {
  const network = Object.values(config.checks).some((check) => check.network === true);
  const { info, missing } = chooseSandbox({ mode: config.sandbox, network, env });
  if (info.kind !== "none") return { ok: true, text: `sandbox: ${info.kind} · net ${network ? "on for some checks" : "off"} · secrets hidden (${info.reason}); ${HIDDEN_SENTENCE}` };
  if (config.sandbox === "off") return { ok: true, text: "sandbox: off in the config; checks run unsandboxed" };
  return { ok: false, text: `sandbox: none, checks run UNSANDBOXED (${info.reason})`, fix: missing ?? undefined };
}
