import { existsSync } from "node:fs";
import { freemem } from "node:os";
import { readGgufHeader, GgufError, type GgufInfo } from "./gguf.ts";
import { planServer } from "./server-plan.ts";
import type { ServerLaunch } from "./llama-server-process.ts";
import { glassboxFolder } from "../platform/glassbox-folder.ts";
import type { Env, ModelConfig } from "./model-config.ts";
import { UsageError } from "../protocol/usage-error.ts";

/** What to install, per platform, when no llama-server is found. */
const INSTALL: Partial<Record<NodeJS.Platform, string>> = {
  darwin: "brew install llama.cpp",
  win32: "winget install llama.cpp",
  linux: "your distribution's llama.cpp package, or a build from https://github.com/ggml-org/llama.cpp/releases",
};

/**
 * How llama-server is started for a GGUF file, checked before anything starts: the file must be
 * a whole GGUF and the binary must exist, else a usage error (exit 2) says what to do. The
 * window per slot and the flags for the architecture are planServer's (server-plan.ts), from the
 * file's metadata and the machine's free memory (`freeBytes`).
 */
export function ggufLaunch(path: string, config: ModelConfig, workspaceRoot: string, slots = 1, env: Env = process.env, freeBytes = freemem()): ServerLaunch {
  if (!existsSync(path)) throw new UsageError(`${path}: no such file; check the path after gguf:`);
  let info: GgufInfo;
  try {
    info = readGgufHeader(path);
  } catch (error) {
    if (error instanceof GgufError) throw new UsageError(`${path} ${error.message}; download the model again`);
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const plan = planServer(info, { numCtx: config.model_options.num_ctx, slots, freeBytes, userArgs: config.llama_server.args, swaFull: config.llama_server.swa_full });
  return {
    binary: [serverBinary(config, env)],
    model: path,
    window: plan.window * slots,
    slots,
    archArgs: plan.flags,
    plan,
    extraArgs: config.llama_server.args,
    logPath: glassboxFolder(workspaceRoot, "llama-server.log"),
  };
}

/** GLASSBOX_LLAMA_SERVER, else the config's llama_server.binary, else llama-server on PATH. */
function serverBinary(config: ModelConfig, env: Env): string {
  const named = env.GLASSBOX_LLAMA_SERVER?.trim() || config.llama_server.binary;
  if (named) {
    const found = Bun.which(named, { PATH: env.PATH ?? "" }) ?? (existsSync(named) ? named : null);
    if (!found) throw new UsageError(`llama-server ${named} (from ${env.GLASSBOX_LLAMA_SERVER?.trim() ? "GLASSBOX_LLAMA_SERVER" : "llama_server.binary"}) does not exist; fix the path`);
    return found;
  }
  const onPath = Bun.which("llama-server", { PATH: env.PATH ?? "" });
  if (onPath) return onPath;
  const install = INSTALL[process.platform] ?? INSTALL.linux;
  throw new UsageError(
    `llama-server is not on PATH; install llama.cpp (${install}), or name the binary with GLASSBOX_LLAMA_SERVER=/path/to/llama-server or "llama_server": {"binary": "…"} in glassbox.json`,
  );
}
