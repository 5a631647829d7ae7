import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { z } from "zod";
import { homeFolder } from "../platform/home.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { parseWith } from "../protocol/parse-with.ts";
import { canonicalJson } from "../protocol/canonical.ts";
import { modelIdentity, type ModelIdentity } from "../model/identity.ts";
import { parseModelSpec } from "../model/model-spec.ts";
import { DEMO_MODEL } from "../model/demo-model.ts";
import { serverAccess } from "../model/server-access.ts";
import { loadConfig } from "./config.ts";
import type { AccessArgs } from "../model/server-access.ts";

/**
 * What `glassbox tune` found for one model, kept outside every workspace, keyed by the model's
 * identity; every later run with that model applies its settings under glassbox.json and the
 * command line.
 */
export const ProfileSchema = z
  .object({
    version: z.literal(1),
    identity: z.record(z.string(), z.string()).refine((identity) => typeof identity.server === "string" && typeof identity.model === "string", "names no server and model"),
    /** Config key path → value: what the runs of this model get unless glassbox.json or the command line says otherwise. */
    settings: z.record(z.string(), z.unknown()),
    traits: z.array(z.object({ name: z.string(), detail: z.string(), fix: z.string().nullable() }).strict()),
    created: z.string(),
    /** The tune that wrote it: its results folder, the battery, the speed the server counted. */
    tune: z.object({ out: z.string(), quick: z.boolean(), model: z.string() }).strict().optional(),
    speed: z.record(z.string(), z.number().nullable()).optional(),
  })
  .strict();

export type Profile = z.infer<typeof ProfileSchema>;

/** A model's profile as read from its file. */
export interface FoundProfile {
  path: string;
  profile: Profile;
}

/** A profile as a run applies it: where it is and the settings that took effect (those glassbox.json or the command line set are left out). */
export interface AppliedProfile {
  path: string;
  settings: Record<string, unknown>;
}

/** $XDG_CONFIG_HOME/glassbox/profiles, else ~/.config/glassbox/profiles. */
export function profilesFolder(env: Record<string, string | undefined> = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homeFolder(env), ".config"), "glassbox", "profiles");
}

/** One file per identity: the model's name made safe for a file name, then a digest of the whole identity. */
export function profilePath(identity: ModelIdentity, env: Record<string, string | undefined> = process.env): string {
  const name = identity.model.split(/[\\/]/).pop()!.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60) || "model";
  const digest = createHash("sha256").update(canonicalJson(identity)).digest("hex").slice(0, 12);
  return join(profilesFolder(env), `${name}-${digest}.json`);
}

/** Written through a rename, so a profile is never half a file. */
export function saveProfile(profile: Profile, env: Record<string, string | undefined> = process.env): string {
  const path = profilePath(profile.identity as ModelIdentity, env);
  try {
    mkdirSync(resolve(path, ".."), { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(profile, null, 2) + "\n");
    renameSync(temporary, path);
  } catch (error) {
    throw new UsageError(`cannot write the model profile ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); make the folder writable or set XDG_CONFIG_HOME to one that is (the results are kept)`);
  }
  return path;
}

/** The profile of a model, or null when it has none; a file that is not a profile is a usage error naming it. */
export function readProfile(identity: ModelIdentity, env: Record<string, string | undefined> = process.env): FoundProfile | null {
  const path = profilePath(identity, env);
  if (!existsSync(path)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new UsageError(`the model profile ${path} is not valid JSON (${(error as Error).message}); delete it, or run glassbox tune again (--no-profile runs without it)`);
  }
  return { path, profile: parseWith(ProfileSchema, raw, `the model profile ${path} (delete it, or run glassbox tune again)`) };
}

/** What names a session's model: the command line's options (SessionArgs fits), and --no-profile. */
export interface ProfileArgs extends AccessArgs {
  model?: string;
  modelName?: string;
  baseUrl?: string;
  workspace?: string;
  config?: string;
  noProfile?: boolean;
}

/**
 * The profile a session opened from `args` applies: the model its command line or config names,
 * identified by asking its server. Null with --no-profile, with no model named (discovery picks
 * one later), when the model has no profile, or when its server does not answer (the run says so).
 */
export async function profileFor(args: ProfileArgs, env: Record<string, string | undefined> = process.env): Promise<FoundProfile | null> {
  if (args.noProfile) return null;
  const { config } = loadConfig(args.config, resolve(args.workspace ?? "."));
  const specText = args.model ?? config.model;
  // The demo's model is built in: nobody tunes it.
  if (!specText || specText === DEMO_MODEL) return null;
  const spec = parseModelSpec(specText, args.baseUrl);
  try {
    const identity = await modelIdentity(spec, serverAccess(args, config, spec.kind === "openai"), args.modelName ?? config.model_name);
    return readProfile(identity, env);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return null;
  }
}
