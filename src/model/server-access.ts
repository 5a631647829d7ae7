import { ApiKey, readCaFile, type ServerAccess } from "./access.ts";
import type { Env, ModelConfig } from "./model-config.ts";
import { UsageError } from "../protocol/usage-error.ts";

/** The options that say how to reach a server: the command line's, over the config's. */
export interface AccessArgs {
  apiKeyEnv?: string;
  caFile?: string;
  insecureTls?: boolean;
}

export const DEFAULT_KEY_VARIABLE = "GLASSBOX_API_KEY";

/**
 * The key (from the environment only), the extra CA and --insecure-tls. An `openai:` model also
 * reads OPENAI_API_KEY when GLASSBOX_API_KEY is unset, as its clients do.
 */
export function serverAccess(args: AccessArgs, config: ModelConfig, openAi: boolean, env: Env = process.env): ServerAccess {
  const named = args.apiKeyEnv ?? config.api_key_env;
  const keyVariable = named ?? DEFAULT_KEY_VARIABLE;
  if (named !== undefined && !env[named]) throw new UsageError(`${args.apiKeyEnv ? "--api-key-env" : "api_key_env"} names ${named}, which is not set in the environment; set it, or drop the option`);
  const fallback = !named && !env[DEFAULT_KEY_VARIABLE] && openAi && env.OPENAI_API_KEY ? "OPENAI_API_KEY" : keyVariable;
  const value = env[fallback];
  return {
    key: value ? new ApiKey(value, fallback) : null,
    keyVariable,
    extraCa: caCertificates(args.caFile ?? config.ca_file, args.caFile ? "--ca-file" : "ca_file"),
    insecureTls: args.insecureTls ?? false,
  };
}

function caCertificates(path: string | undefined, option: string): string[] {
  if (path === undefined) return [];
  try {
    return readCaFile(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ? `cannot read it (${(error as NodeJS.ErrnoException).code})` : (error as Error).message;
    throw new UsageError(`${option} ${path}: ${reason}; give the PEM file of the CA that signed the server's certificate`);
  }
}

/** What doctor says of the key: never its value. */
export function keyLine(access: ServerAccess): string {
  return access.key ? `key: set (from ${access.key.variable})` : `key: none (set ${access.keyVariable} if the server needs one)`;
}
