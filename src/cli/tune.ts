import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { CliArgs } from "./args.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { loadConfig, type Config } from "../session/config.ts";
import { readProfile, saveProfile, type Profile } from "../session/profile.ts";
import { parseModelSpec } from "../model/model-spec.ts";
import { serverAccess } from "../model/server-access.ts";
import { findModels, onlyCandidate } from "../model/find-model.ts";
import { modelIdentity, ServerUnreachable, type ModelIdentity } from "../model/identity.ts";
import { loadTasks, type Task } from "../eval/task.ts";
import { unpackBattery } from "../eval/battery.ts";
import { ARMS, mergeArms, planRuns, taskDigest, writeJson, type Manifest } from "../eval/results.ts";
import { htmlReport } from "../eval/html-report.ts";
import type { ProgressSink } from "../eval/progress.ts";
import { countTraits, namedTraits, runEvents, traitLines } from "../eval/traits.ts";
import { armConfig, armName, BASELINE_ARM, BATTERY, judgeSetting, QUICK_BATTERY, settingLine, TUNE_SETTINGS, type TuneSetting } from "../eval/tune.ts";
import { armsIn, refuseFinished, runOwed, stamp, startArm, type ArmRun } from "./eval.ts";

/** What a tune's folder says of it, beside its arms: enough to resume it and to write its profile. */
interface TuneManifest {
  version: 1;
  model: string;
  quick: boolean;
  identity: ModelIdentity;
  settings: TuneSetting[];
}

const TUNE_MANIFEST = "tune.json";

/** The config keys every arm shares with the person's own glassbox.json: how the server is reached and started. */
const SHARED_KEYS = ["llama_server", "model_name", "api_key_env", "ca_file"] as const;

const stderrSink: ProgressSink = { tty: Boolean(process.stderr.isTTY), write: (text) => void process.stderr.write(text) };

/**
 * `glassbox tune`: the battery (eval lab tasks) on the person's model, once with the defaults and
 * once per setting with its other value, all paired by task; the traits of the default runs, one
 * line per setting, and a profile of what won, applied to every later run with this model.
 */
export async function tune(args: CliArgs, out: (line: string) => void = (line) => console.log(line), progress: ProgressSink = stderrSink, stop?: AbortSignal, env: Record<string, string | undefined> = process.env): Promise<number> {
  try {
    if (args.show) return await showProfile(args, out, env);
    const started = args.resumeEval ? resumeTune(args) : await newTune(args);
    const interrupted = await runOwed(started.arms, args, progress, stop, "tune");
    if (interrupted !== null) return interrupted;
    return await conclude(started.outDir, started.manifest, out, env);
  } catch (error) {
    if (!(error instanceof ServerUnreachable)) throw error;
    progress.write(`glassbox: ${error.message}\n`);
    return 1;
  }
}

/** The model tune is about: --model, the config's, or the one model that answers; and its identity, from its server. */
async function identify(args: CliArgs): Promise<{ spec: string; config: Config; identity: ModelIdentity }> {
  const { config } = loadConfig(args.config, resolve(args.workspace ?? "."));
  const spec = args.model ?? config.model ?? onlyCandidate(await findModels(args.baseUrl)).spec;
  const parsed = parseModelSpec(spec, args.baseUrl);
  const identity = await modelIdentity(parsed, serverAccess(args, config, parsed.kind === "openai"), args.modelName ?? config.model_name);
  return { spec, config, identity };
}

async function newTune(args: CliArgs): Promise<{ outDir: string; manifest: TuneManifest; arms: ArmRun[] }> {
  if (args.tasks || args.seeds || args.configs.length || args.shard || args.replay) throw new UsageError("tune runs its own battery with its own arms; it takes --model, --quick, --jobs and --out (not --tasks, --seeds, --config, --shard or --replay)");
  const { spec, config, identity } = await identify(args);
  const names = args.quick ? QUICK_BATTERY : BATTERY;
  const unpacked = mkdtempSync(join(tmpdir(), "glassbox-battery-"));
  try {
    const tasks = loadTasks(unpackBattery(unpacked)).filter((task) => names.includes(task.name));
    return startTune(args, spec, config, identity, tasks);
  } finally {
    // Each arm's folder holds its own copy of the tasks and their projects (startArm).
    rmSync(unpacked, { recursive: true, force: true });
  }
}

/** The folders of a new tune: one arm per setting beside the baseline, each with its copy of the battery. */
function startTune(args: CliArgs, spec: string, config: Config, identity: ModelIdentity, tasks: Task[]): { outDir: string; manifest: TuneManifest; arms: ArmRun[] } {
  const outDir = resolve(args.out ?? join("tune-results", stamp()));
  const shared: Record<string, unknown> = Object.fromEntries(SHARED_KEYS.flatMap((key) => (config[key] === undefined ? [] : [[key, config[key]]])));
  if (config.model_options.num_ctx !== undefined) shared.model_options = { num_ctx: config.model_options.num_ctx };
  const named = [{ name: BASELINE_ARM, config: shared }, ...TUNE_SETTINGS.map((setting) => ({ name: armName(setting), config: armConfig(shared, setting) }))];
  for (const arm of named) refuseFinished(join(outDir, arm.name));
  const manifest: TuneManifest = { version: 1, model: spec, quick: args.quick, identity, settings: TUNE_SETTINGS };
  const arms = named.map(({ name, config: armSettings }) => {
    const arm: Manifest = { version: 1, arm: name, model: spec, ...(args.baseUrl ? { base_url: args.baseUrl } : {}), config: armSettings, seeds: [1], shard: null, tasks: tasks.map((task) => task.name), task_digest: taskDigest(tasks) };
    return startArm(join(outDir, name), arm, tasks, planRuns(tasks, [1], null));
  });
  writeJson(join(outDir, ARMS), { arms: named.map((arm) => arm.name) });
  writeJson(join(outDir, TUNE_MANIFEST), manifest);
  return { outDir, manifest, arms };
}

function resumeTune(args: CliArgs): { outDir: string; manifest: TuneManifest; arms: ArmRun[] } {
  if (args.model || args.out || args.quick || args.tasks || args.configs.length) throw new UsageError("--resume OUT takes the model and the battery from OUT; pass only --jobs (and --base-url if the server moved)");
  const outDir = resolve(args.resumeEval!);
  const path = join(outDir, TUNE_MANIFEST);
  if (!existsSync(path)) throw new UsageError(`${outDir} has no ${TUNE_MANIFEST}: --resume needs the output folder of a glassbox tune`);
  return { outDir, manifest: JSON.parse(readFileSync(path, "utf8")) as TuneManifest, arms: armsIn(outDir, args.baseUrl) };
}

/** Every arm ran: the traits of the default runs, a line per setting, the profile written, the report beside the results. */
async function conclude(outDir: string, manifest: TuneManifest, out: (line: string) => void, env: Record<string, string | undefined>): Promise<number> {
  const arms = mergeArms([outDir]);
  const baseline = arms[0]!;
  const results = manifest.settings.map((setting, index) => judgeSetting(setting, baseline.verdicts, arms[index + 1]!.verdicts));
  const counts = countTraits(runEvents(baseline.folders[0]!, baseline.verdicts), baseline.verdicts.map((verdict) => verdict.first_token_ms));
  const traits = namedTraits(counts);
  const passed = baseline.verdicts.filter((verdict) => verdict.passed).length;
  const lines = [
    `glassbox tune · model ${manifest.model} · ${manifest.identity.server} ${manifest.identity.model}`,
    `battery: ${baseline.verdicts.length} task(s)${manifest.quick ? " (--quick)" : ""}, ${arms.length} arms; the defaults passed ${passed} of ${baseline.verdicts.length}`,
    ...traitLines(counts, traits),
    ...results.map(settingLine),
    ...(manifest.quick ? ["--quick names traits: five pairs cannot reach p < 0.05 (McNemar needs six discordant pairs), so every setting is kept; the full battery (no --quick) changes settings"] : []),
  ];
  const profile: Profile = {
    version: 1,
    identity: manifest.identity,
    settings: Object.fromEntries(results.filter((result) => result.changed).map((result) => [result.key, result.value])),
    traits,
    created: new Date().toISOString(),
    tune: { out: outDir, quick: manifest.quick, model: manifest.model },
    speed: { first_token_ms: counts.firstTokenMs, prefill_tokens_per_second: counts.prefillPerSecond, generation_tokens_per_second: counts.generationPerSecond, prompt_reused_share: counts.reusedShare },
  };
  writeFileSync(join(outDir, "report.html"), await htmlReport(arms, { title: "Traits and settings", lines }));
  for (const line of lines) out(line);
  const path = saveProfile(profile, env);
  out(`profile: ${path} (${Object.keys(profile.settings).length} setting(s) changed; applied to every run with this model, --no-profile runs without it, glassbox.json and the command line win)`);
  out(`results: ${outDir} (report ${join(outDir, "report.html")}; glassbox compare ${outDir} pairs each arm with the defaults)`);
  return 0;
}

/** `glassbox tune --show`: the model's profile as saved; none is exit 1, with how to make one. */
async function showProfile(args: CliArgs, out: (line: string) => void, env: Record<string, string | undefined>): Promise<number> {
  const { spec, identity } = await identify(args);
  const found = readProfile(identity, env);
  if (!found) {
    out(`no profile for ${spec} (${identity.server} ${identity.model}); glassbox tune --model ${spec} writes one`);
    return 1;
  }
  out(`profile ${found.path}`);
  out(JSON.stringify(found.profile, null, 2));
  return 0;
}
