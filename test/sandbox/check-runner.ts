/**
 * Runs one check through the real check runner and prints `{info, outcome}` as JSON. The sandbox
 * tests compile it (compiledForUnprivileged) and start it as an unprivileged user (setpriv), the
 * way a check runs on a laptop.
 *
 *   check-runner '{"kind":"bwrap","workspace":"/…","check":{…}}'
 */
import { runCheck, type Check } from "../../src/tools/checks.ts";
import { chooseSandbox } from "../../src/sandbox/detect.ts";
import { LAUNCHER_COMMAND } from "../../src/sandbox/launcher-command.ts";
import { runLauncher } from "../../src/sandbox/launcher.ts";

// Compiled, this binary is also the process between the runner and a check, as glassbox's is (src/cli/main.ts).
if (process.argv[2] === LAUNCHER_COMMAND) process.exit(await runLauncher());

const { kind, workspace, check } = JSON.parse(process.argv[2]!) as { kind: string; workspace: string; check: Check };
const choice = chooseSandbox({ mode: kind === "off" ? "off" : "auto", network: check.network === true, env: { ...process.env, GLASSBOX_SANDBOX_KINDS: kind } });
const outcome = await runCheck(check, workspace, new AbortController().signal, choice.sandbox);
console.log(JSON.stringify({ info: choice.info, outcome }));
