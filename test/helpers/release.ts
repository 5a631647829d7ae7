/**
 * The release, built once per test run by the real scripts/release.ts (release and install tests
 * share it). Set GLASSBOX_SKIP_E2E=1 to skip the tests that need it.
 */
import { release, type ReleasedFile } from "../../scripts/release.ts";
import { sharedOnce } from "./shared-once.ts";

export interface BuiltRelease {
  dir: string;
  files: ReleasedFile[];
}

export function sharedRelease(): Promise<BuiltRelease> {
  return sharedOnce("release", async (dir) => ({ dir, files: await release(dir) }));
}

