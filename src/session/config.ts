import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { PARSE_ONCE } from "../protocol/zod-start.ts";
import { LimitOverridesSchema } from "../protocol/limits.ts";
import { CheckSchema } from "../tools/checks.ts";
import { DEFAULT_MODEL_OPTIONS, ModelOptionsSchema } from "../model/options.ts";
import {
  BudgetWarningSchema,
  ContextPolicySchema,
  DEFAULT_BUDGET_WARNING,
  DEFAULT_CONTEXT_POLICY,
  DEFAULT_STALL_RULES,
  StallRulesSchema,
} from "../core/discipline.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { TOOL_PROTOCOL_SETTINGS } from "../protocol/model.ts";
import { parseWith } from "../protocol/parse-with.ts";
import { SANDBOX_MODES } from "../sandbox/sandbox.ts";
import { McpServersSchema } from "../mcp/config.ts";
import { ComponentsSchema, DEFAULT_COMPONENTS } from "../protocol/components.ts";
import { DEFAULT_REPO_MAP_CONFIG, RepoMapConfigSchema } from "../map/map-config.ts";
import { valueAt, withValueAt } from "../protocol/key-path.ts";

/** Flags glassbox sets itself on a server it starts: it listens on loopback only, on a port glassbox picks. */
const OWN_SERVER_FLAGS = ["--host", "--port"];

const LlamaServerConfigSchema = z
  .object({
    binary: z.string().min(1).optional(),
    args: z
      .array(z.string())
      .default([])
      .refine((args) => !args.some((arg) => OWN_SERVER_FLAGS.includes(arg.split("=")[0]!)), {
        message: "sets --host or --port, which glassbox sets itself (the server listens on 127.0.0.1 on a free port); remove them",
      }),
    /** A sliding-window model's full-size cache: "auto" where it fits half the free memory, true always, false never. */
    swa_full: z.union([z.boolean(), z.literal("auto")], { error: 'must be true, false or "auto"' }).default("auto"),
  })
  .strict()
  .refine((server) => !(server.swa_full === false && server.args.includes("--swa-full")), {
    message: "is false while llama_server.args has --swa-full; remove one of them",
    path: ["swa_full"],
  });

export const ConfigSchema = z
  .object({
    model: z.string().min(1).optional(),
    model_options: ModelOptionsSchema.default(DEFAULT_MODEL_OPTIONS),
    checks: z.record(z.string().regex(/^[A-Za-z0-9_.-]+$/, "a check name is letters, digits, _ . -"), CheckSchema).default({}),
    verify: z.string().optional(),
    limits: LimitOverridesSchema.default({}),
    context: ContextPolicySchema.default(DEFAULT_CONTEXT_POLICY),
    stall: StallRulesSchema.default(DEFAULT_STALL_RULES),
    budget_warning: BudgetWarningSchema.default(DEFAULT_BUDGET_WARNING),
    /** Syntax checks for edited files by extension (".py": {"argv": [...]}), beyond TS/JS/JSON. */
    edit_checks: z.record(z.string().regex(/^\.[A-Za-z0-9]+$/, "an extension like .py"), CheckSchema).default({}),
    /** Counterfactual switches for `glassbox eval --replay` only: what would have happened without a guard. */
    /** Harness components switched off for ablations (all on by default). */
    components: ComponentsSchema.default(DEFAULT_COMPONENTS),
    /** The map of the code: its token budget (default: from the window) and whether it is also a prompt layer. */
    repo_map: RepoMapConfigSchema.default(DEFAULT_REPO_MAP_CONFIG),
    experiment: z.object({ disable_confinement: z.boolean().default(false) }).strict().optional(),
    /** MCP servers: stdio {command, env, env_pass, cwd, timeout_seconds} or Streamable HTTP {url, headers, timeout_seconds}. */
    mcp_servers: McpServersSchema.default({}),
    allow: z.array(z.string()).default([]),
    deny: z.array(z.string()).default([]),
    /** How checks are confined: "auto" where the platform allows, "require" refuses to run without, "off". */
    sandbox: z.enum(SANDBOX_MODES).default("auto"),
    /** Tool calls a model writes in its reply's text (not the protocol's field) are recovered as calls. */
    text_tool_calls: z.boolean().default(true),
    /** How tools reach the model: "auto" (prompted when the server's chat template has no tools or refuses tool roles), "native", "prompted". */
    tool_protocol: z.enum(TOOL_PROTOCOL_SETTINGS).default("auto"),
    /** The llama-server glassbox starts for a `gguf:` model: which binary, and arguments of the person's own. */
    llama_server: LlamaServerConfigSchema.default({ args: [], swa_full: "auto" }),
    /** openai: the model's name on the server (absent: the one it lists, when it lists one). */
    model_name: z.string().min(1).optional(),
    /** The environment variable that holds the server's key (never the key itself). */
    api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable's name").optional(),
    /** A PEM file of CA certificates trusted besides the system's, for a server behind a private CA. */
    ca_file: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((config, context) => {
    if (config.verify !== undefined && !(config.verify in config.checks)) {
      context.addIssue({ code: "custom", path: ["verify"], message: `names no configured check (checks: ${Object.keys(config.checks).join(", ") || "none"})` });
    }
  });

export type Config = z.infer<typeof ConfigSchema>;

/** The config file: `--config FILE`, else `glassbox.json` in the workspace if present, else defaults. */
export function loadConfig(explicit: string | undefined, workspaceRoot: string): { config: Config; source: string | null } {
  return readConfig(explicit, workspaceRoot).under();
}

/** A config file read once, which gives its config under any model profile's settings: a session's model, and so its profile, may change. */
export interface ConfigFile {
  /** The file's path; null when there is none. */
  source: string | null;
  /**
   * The config with a profile's settings laid under the file's keys, and the settings that took
   * effect; a UsageError when it does not parse, naming the file, or the profile when only its settings break it.
   */
  under(profile?: { settings: Record<string, unknown>; name: string }): { config: Config; source: string | null; applied: Record<string, unknown> };
}

export function readConfig(explicit: string | undefined, workspaceRoot: string): ConfigFile {
  const path = explicit ?? join(workspaceRoot, "glassbox.json");
  const file = !explicit && !existsSync(path) ? null : readConfigFile(path);
  const source = file === null ? null : path;
  return {
    source,
    under(profile) {
      const { raw, applied } = underConfig(file ?? {}, profile?.settings ?? {});
      if (file === null && Object.keys(applied).length === 0) return { config: ConfigSchema.parse({}, PARSE_ONCE), source, applied };
      // The file alone parses, with the profile's settings it does not: the profile is named, not the file.
      const profileAtFault = () => file === null || (Object.keys(applied).length > 0 && ConfigSchema.safeParse(file).success);
      return { config: parseWith(ConfigSchema, raw, () => (profileAtFault() ? profile!.name : `config file ${path}`)), source, applied };
    },
  };
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new UsageError(`cannot read config file ${path}: check the --config path`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`config file ${path} is not valid JSON (${(error as Error).message}); fix the file`);
  }
  refuseKeyInFile(raw, path);
  return raw as Record<string, unknown>;
}

/** Settings laid under a config file's keys: a key path the file sets keeps the file's value. */
export function underConfig(raw: Record<string, unknown>, settings: Record<string, unknown>): { raw: Record<string, unknown>; applied: Record<string, unknown> } {
  const applied: Record<string, unknown> = {};
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return { raw, applied };
  let merged = raw;
  for (const [path, value] of Object.entries(settings)) {
    if (valueAt(raw, path) !== undefined) continue;
    merged = withValueAt(merged, path, value);
    applied[path] = value;
  }
  return { raw: merged, applied };
}

/** A key written into a config file would end up in commits and backups: it is refused, and never echoed. */
function refuseKeyInFile(raw: unknown, path: string): void {
  if (raw && typeof raw === "object" && "api_key" in raw) {
    throw new UsageError(`config file ${path} sets "api_key": glassbox reads keys only from the environment, never from a file; remove it and set GLASSBOX_API_KEY (or the variable "api_key_env" names)`);
  }
}
