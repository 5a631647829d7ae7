import type { Confinement } from "./rules.ts";
import type { Sandbox } from "./sandbox.ts";

/** macOS's sandbox-exec, at its fixed path: never looked up on PATH, so a project cannot put its own there. */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** A Scheme string literal: only `"` and `\` need escaping. */
const quoted = (path: string) => `"${path.replace(/[\\"]/g, (char) => `\\${char}`)}"`;

/**
 * A deny-by-default Seatbelt profile for one check: reads everywhere but the secrets, writes only
 * in the writable folders (not `.git` or `.glassbox`), processes, and no network unless asked.
 * Later rules win in Seatbelt, so each deny comes after the allow it narrows.
 */
export function seatbeltProfile(rules: Confinement): string {
  const lines = [
    "(version 1)",
    "(deny default)",
    "(allow process-exec process-fork)",
    "(allow signal (target same-sandbox))",
    "(allow sysctl-read mach-lookup ipc-posix-shm iokit-open)",
    "(allow file-read*)",
    ...rules.hidden.map(({ path, folder }) => `(deny file-read* (${folder ? "subpath" : "literal"} ${quoted(path)}))`),
    `(allow file-write* ${[...rules.writable.map((path) => `(subpath ${quoted(path)})`), '(literal "/dev/null")', '(literal "/dev/tty")', '(regex #"^/dev/fd/")'].join(" ")})`,
    ...[...rules.readOnly, ...rules.hidden.map((entry) => entry.path)].map((path) => `(deny file-write* (subpath ${quoted(path)}))`),
  ];
  // Deny by default covers the network; a check that asks for it gets all of it.
  if (rules.network) lines.push("(allow network*)");
  return lines.join("\n") + "\n";
}

export function seatbeltSandbox(): Sandbox {
  return { kind: "seatbelt", command: (argv, rules, env) => ({ argv: [SANDBOX_EXEC, "-p", seatbeltProfile(rules), ...argv], cwd: rules.cwd, env }) };
}
