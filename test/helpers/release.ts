/**
 * The release, built once per `bun test` process by the real scripts/release.ts into a temp
 * folder (release and install tests share it). Set GLASSBOX_SKIP_E2E=1 to skip the tests that need it.
 */
import { release, type ReleasedFile } from "../../scripts/release.ts";
import { tempFolder } from "./workspace.ts";

export interface BuiltRelease {
  dir: string;
  files: ReleasedFile[];
}

let built: Promise<BuiltRelease> | null = null;

export function sharedRelease(): Promise<BuiltRelease> {
  built ??= (async () => {
    // process.on("exit") never runs under bun test; the preload's afterAll does, once every file is done.
    const dir = tempFolder("release");
    return { dir, files: await release(dir) };
  })();
  return built;
}

/** A tool the environment may lack, and whether this run insists on it (.ci/run sets GLASSBOX_REQUIRE_<NAME>=1 after installing it). */
export function required(name: string): boolean {
  return process.env[`GLASSBOX_REQUIRE_${name.toUpperCase()}`] === "1";
}
