import { lstatSync, renameSync, writeFileSync } from "node:fs";
import { glassboxFolder, makeGlassboxFolder } from "../platform/glassbox-folder.ts";
import { join } from "node:path";
import { configFor, configText, detectChecks, snapshotProject, type Detection } from "../session/detect-checks.ts";
import { workspaceRoot } from "../session/workspace-root.ts";
import { workspaceLayers } from "../session/session.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { layerTable } from "./audit.ts";
import type { CliArgs } from "./args.ts";

const CONFIG_FILE = "glassbox.json";

/**
 * `glassbox init`: writes glassbox.json with the checks the project's own files name, saying
 * where each came from, then shows the prompt layers the model will get. An existing
 * glassbox.json is replaced only with --force, and then the old one is kept in .glassbox/.
 * With --dry-run the file goes to stdout (so `init --dry-run > FILE` works) and the rest to stderr.
 */
export function init(args: CliArgs, out: (line: string) => void = (line) => console.log(line), note: (line: string) => void = (line) => console.error(line)): number {
  const root = workspaceRoot(args.workspace);
  const path = join(root, CONFIG_FILE);
  const exists = occupied(path);
  if (exists && !args.force && !args.dryRun) {
    throw new UsageError(`${CONFIG_FILE} already exists in ${root}; init does not overwrite it. Edit it by hand, see what init would write with --dry-run, or replace it with --force (the old file is kept in .glassbox/)`);
  }
  const say = args.dryRun ? note : out;
  const detection = detectChecks(snapshotProject(root));
  describe(detection, root, say);
  const text = configText(configFor(detection));
  say("");
  if (args.dryRun) {
    say(`--dry-run: nothing written; ${CONFIG_FILE} would read:`);
    out(text.trimEnd());
    if (exists) say(`(${CONFIG_FILE} already exists: writing it needs --force)`);
  } else {
    // Written beside, then moved into place: never half a file, and the old one (a link stays a link) is kept.
    const partial = `${path}.${process.pid}.tmp`;
    writeFileSync(partial, text);
    if (exists) say(`kept the old ${CONFIG_FILE} as ${setAside(root, path)}`);
    renameSync(partial, path);
    say(`wrote ${path}`);
  }
  say("");
  say("The prompt layers the model gets before your task:");
  layerTable(workspaceLayers(root), say);
  say("Read them (glassbox audit --print), then pin them so any change is caught: glassbox audit --write-lock");
  return 0;
}

/** Anything at the path counts, a dangling link included: init never writes through one. */
function occupied(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Moves the old config into .glassbox/ under a dated name. */
function setAside(root: string, path: string): string {
  const folder = makeGlassboxFolder(glassboxFolder(root));
  const name = `${CONFIG_FILE}.${new Date().toISOString().replace(/[:.]/g, "-")}.bak`;
  renameSync(path, join(folder, name));
  return `.glassbox/${name}`;
}

function describe(detection: Detection, root: string, say: (line: string) => void): void {
  const rows = [
    ...detection.checks.map((check) => [check.name, shown(check.argv), check.source]),
    ...detection.editChecks.map((check) => [`edits to ${check.extension}`, `${shown(check.argv)} FILE`, check.source]),
  ];
  for (const line of detection.notes) say(`note: ${line}`);
  if (detection.checks.length === 0) {
    say(`No checks found in ${root}: no package.json test, lint or typecheck script, no pytest set-up, Cargo.toml or go.mod, no Makefile with a test: target.`);
    say(`Add one to ${CONFIG_FILE} by hand: a fixed argv, run in the workspace without a shell, for example`);
    say(`  "checks": {"tests": {"argv": ["./run-tests.sh"], "timeout_seconds": 300}}, "verify": "tests"`);
  } else {
    say(`Found ${detection.checks.length} check${detection.checks.length === 1 ? "" : "s"} in ${root}:`);
  }
  const widths = [0, 1].map((column) => Math.max(0, ...rows.map((row) => row[column]!.length)));
  for (const row of rows) say(`  ${row[0]!.padEnd(widths[0]!)}  ${row[1]!.padEnd(widths[1]!)}  from ${row[2]}`);
  if (detection.verify) say(`verify: ${detection.verify} (finish is accepted only once it passes after the last edit)`);
  say(`Nothing is allowed: every write, edit and command asks you first (read-only git commands aside; a headless run denies them); add "allow" rules to ${CONFIG_FILE} to change that.`);
  const rule = detection.checks.find((check) => check.commandRule)?.commandRule;
  if (rule) {
    say(`Suggested, not added: let the model run one test file of the suite without asking, in the sandbox, with the rule`);
    say(`  ${rule}`);
    say(`  add it to ${CONFIG_FILE} as "allow": [${JSON.stringify(rule)}], or give it for one run: --allow '${rule}'`);
  }
}

/** An argv as a person would type it. */
function shown(argv: string[]): string {
  return argv.map((part) => (/^[\w./:=@+-]+$/.test(part) ? part : JSON.stringify(part))).join(" ");
}
