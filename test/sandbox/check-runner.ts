/**
 * Runs one check through the real check runner and prints `{info, outcome}` as JSON. The sandbox
 * tests start it as an unprivileged user (setpriv), the way a check runs on a laptop.
 *
 *   bun test/sandbox/check-runner.ts '{"kind":"bwrap","workspace":"/…","check":{…}}'
 */
import { runCheck, type Check } from "../../src/tools/checks.ts";
import { chooseSandbox } from "../../src/sandbox/detect.ts";

const { kind, workspace, check } = JSON.parse(process.argv[2]!) as { kind: string; workspace: string; check: Check };
const choice = chooseSandbox({ mode: kind === "off" ? "off" : "auto", network: check.network === true, env: { ...process.env, GLASSBOX_SANDBOX_KINDS: kind } });
const outcome = await runCheck(check, workspace, new AbortController().signal, choice.sandbox);
console.log(JSON.stringify({ info: choice.info, outcome }));
