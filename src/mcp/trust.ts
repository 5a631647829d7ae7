import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
import { PARSE_ONCE, builtOnFirstParse } from "../protocol/zod-start.ts";
import { UsageError } from "../protocol/usage-error.ts";

/**
 * Which workspace-defined servers a person approved, kept outside every workspace (a repository
 * cannot ship its own approval): `$XDG_CONFIG_HOME/glassbox/trust.json`, keyed by workspace and
 * definition hash.
 */
const TrustFileSchema = builtOnFirstParse(() =>
  z
    .object({
      version: z.literal(1),
      trusted: z.array(z.object({ workspace: z.string(), server: z.string(), hash: z.string(), at: z.string() }).strict()),
    })
    .strict(),
);

type TrustFile = z.infer<typeof TrustFileSchema>;

export type TrustState = "trusted" | "untrusted" | "changed";

export function trustPath(env: Record<string, string | undefined> = process.env): string {
  const base = env.XDG_CONFIG_HOME?.trim() ? env.XDG_CONFIG_HOME : join(env.HOME ?? homedir(), ".config");
  return join(base, "glassbox", "trust.json");
}

export class TrustStore {
  constructor(readonly path: string = trustPath()) {}

  /** trusted: this exact definition was approved here; changed: another definition of that name was. */
  state(workspace: string, server: string, hash: string): TrustState {
    const records = this.read().trusted.filter((record) => record.workspace === workspace && record.server === server);
    if (records.some((record) => record.hash === hash)) return "trusted";
    return records.length ? "changed" : "untrusted";
  }

  /** Trusts this definition; an earlier approval of the same server in this workspace is replaced. */
  trust(workspace: string, server: string, hash: string): void {
    const file = this.read();
    file.trusted = file.trusted.filter((record) => !(record.workspace === workspace && record.server === server));
    file.trusted.push({ workspace, server, hash, at: new Date().toISOString() });
    this.write(file);
  }

  /** true when there was an approval to forget. */
  forget(workspace: string, server: string): boolean {
    const file = this.read();
    const kept = file.trusted.filter((record) => !(record.workspace === workspace && record.server === server));
    if (kept.length === file.trusted.length) return false;
    this.write({ ...file, trusted: kept });
    return true;
  }

  private read(): TrustFile {
    if (!existsSync(this.path)) return { version: 1, trusted: [] };
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.path, "utf8"));
    } catch (error) {
      throw new UsageError(`${this.path} is not valid JSON (${(error as Error).message}); fix it or remove it (every workspace server then asks again)`);
    }
    const parsed = TrustFileSchema.safeParse(raw, PARSE_ONCE);
    if (!parsed.success) throw new UsageError(`${this.path} is not a glassbox trust file (${parsed.error.issues[0]!.message}); fix it or remove it`);
    return parsed.data;
  }

  /** Through a rename, so a crash never leaves half a file. */
  private write(file: TrustFile): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(file, null, 2) + "\n", { mode: 0o600 });
    renameSync(temporary, this.path);
  }
}
