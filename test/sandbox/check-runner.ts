/**
 * Runs one check through the real check runner and prints `{info, outcome}` as JSON; or one
 * run_command call through the real tool (its preflight and execution, as the checkpoint runs
 * them once approved) and prints `{info, result}`. The sandbox tests compile it
 * (compiledForUnprivileged) and start it as an unprivileged user (setpriv), the way a check runs
 * on a laptop.
 *
 *   check-runner '{"kind":"bwrap","workspace":"/…","check":{…}}'
 *   check-runner '{"kind":"bwrap","workspace":"/…","command":{"argv":[…],"cwd":"src"}}'
 *   check-runner '{"kind":"bwrap","workspace":"/…","command":{…},"readOnly":true}'   (as a read-only rule allows it)
 *   check-runner '{"kind":"bwrap","workspace":"/…","command":{…},"runId":"r1"}'       (its changes in run r1's journal)
 *   check-runner '{"workspace":"/…","undo":"r1"}'                                     (glassbox undo of run r1; prints {undo})
 */
import { runCheck, type Check } from "../../src/tools/checks.ts";
import { makeRunCommand } from "../../src/tools/run_command.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { systemClock } from "../../src/protocol/clock.ts";
import { chooseSandbox } from "../../src/sandbox/detect.ts";
import { LAUNCHER_COMMAND } from "../../src/sandbox/launcher-command.ts";
import { runLauncher } from "../../src/sandbox/launcher.ts";
import { ChangeJournal } from "../../src/files/journal.ts";
import { applyUndo } from "../../src/files/restore.ts";

// Compiled, this binary is also the process between the runner and a check, as glassbox's is (src/cli/main.ts).
if (process.argv[2] === LAUNCHER_COMMAND) process.exit(await runLauncher());

const { kind, workspace, check, command, readOnly, runId, undo } = JSON.parse(process.argv[2]!) as {
  kind: string;
  workspace: string;
  check?: Check;
  command?: unknown;
  readOnly?: boolean;
  runId?: string;
  undo?: string;
};
if (undo) {
  const { entry } = applyUndo(new Workspace(workspace), undo, { force: false });
  console.log(JSON.stringify({ undo: entry?.files ?? [] }));
  process.exit(0);
}
const choice = chooseSandbox({ mode: kind === "off" ? "off" : "auto", network: check?.network === true, env: { ...process.env, GLASSBOX_SANDBOX_KINDS: kind } });
const signal = new AbortController().signal;
if (check) {
  console.log(JSON.stringify({ info: choice.info, outcome: await runCheck(check, workspace, signal, choice.sandbox) }));
} else {
  const journal = runId ? new ChangeJournal(workspace, runId) : undefined;
  const plan = await makeRunCommand(choice.sandbox).plan(command as never, { workspace: new Workspace(workspace), clock: systemClock, signal, todo: [], journal });
  plan.readOnly = readOnly === true;
  console.log(JSON.stringify({ info: choice.info, result: await plan.execute() }));
}
