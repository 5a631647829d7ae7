import { join } from "node:path";
import { LlamaServerProcess, ServerStartError, type ServerLaunch } from "../model/llama-server-process.ts";
import { ConfigSchema } from "../session/config.ts";
import { parseWith } from "../protocol/parse-with.ts";
import { ggufLaunch } from "../model/llama-server-launch.ts";
import { parseModelSpec } from "../model/model-spec.ts";
import { UsageError } from "../protocol/usage-error.ts";
import type { Manifest } from "./results.ts";

/** The llama-servers an eval started, and the model spec each arm's runs use. */
export interface ArmServers {
  /** Per arm, in the arms' order: `llamacpp:URL` of its server for a gguf: arm, else the arm's own spec. */
  specs: string[];
  stop(): Promise<void>;
}

/**
 * The llama-servers of an eval's gguf: arms, started before any run and stopped by the caller
 * after the last: one per distinct command line (arms that differ only in the harness share
 * one), with `slots` slots (-np) and the window per slot × slots, so `--jobs N` runs go to one
 * loaded model at once. Each run talks to it as llamacpp:URL with its own options (its seed):
 * a run that started its own server would load the model once per run and leave it running.
 * A server that cannot start is a usage error, as it is for `run`.
 */
export async function startArmServers(arms: Array<{ folder: string; manifest: Manifest }>, slots: number, say: (line: string) => void, signal: AbortSignal): Promise<ArmServers> {
  const started = new Map<string, LlamaServerProcess>();
  const stop = async () => {
    await Promise.all([...started.values()].map((server) => server.stop()));
  };
  const specs: string[] = [];
  try {
    for (const arm of arms) {
      const launch = armLaunch(arm, slots);
      if (!launch) {
        specs.push(arm.manifest.model);
        continue;
      }
      // The log's place is the first arm's folder; it does not make a server different.
      const key = JSON.stringify({ ...launch, logPath: null });
      if (!started.has(key)) started.set(key, await startServer(launch, arm.manifest.model, say, signal));
      specs.push(`llamacpp:${started.get(key)!.url}`);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { specs, stop };
}

/**
 * How a gguf: arm's server is started: from the arm's own config (its --config; a task's or a
 * workspace's config cannot change a server every task shares), its log beside the arm's
 * results, since each run's workspace copy is removed after the run. Null for other models.
 */
function armLaunch(arm: { folder: string; manifest: Manifest }, slots: number): ServerLaunch | null {
  if (arm.manifest.replay) return null;
  const spec = parseModelSpec(arm.manifest.model, arm.manifest.base_url);
  if (spec.kind !== "gguf") return null;
  const config = parseWith(ConfigSchema, arm.manifest.config ?? {}, `the config of arm ${arm.manifest.arm}`);
  return { ...ggufLaunch(spec.path, config, arm.folder, slots), logPath: join(arm.folder, "llama-server.log") };
}

async function startServer(launch: ServerLaunch, model: string, say: (line: string) => void, signal: AbortSignal): Promise<LlamaServerProcess> {
  try {
    const { server, loadMs } = await LlamaServerProcess.start(launch, undefined, signal);
    say(`started llama-server for ${model} (pid ${server.pid}, port ${server.port}, ${launch.slots} slot(s)), loaded in ${loadMs} ms: ${server.command.join(" ")}; log ${launch.logPath}`);
    return server;
  } catch (error) {
    throw error instanceof ServerStartError && !signal.aborted ? new UsageError(error.message) : error;
  }
}
