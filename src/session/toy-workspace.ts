import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import readme from "../../workspace/README.md" with { type: "text" };
import notes from "../../workspace/NOTES.md" with { type: "text" };
import packageJson from "../../workspace/package.json" with { type: "text" };
import glassboxJson from "../../workspace/glassbox.json" with { type: "text" };
import agents from "../../workspace/AGENTS.md" with { type: "text" };
import promptsLock from "../../workspace/prompts.lock" with { type: "text" };
// @ts-expect-error: a source file of the toy project, embedded as text, not imported as code
import versionSource from "../../workspace/src/version.ts" with { type: "text" };
// @ts-expect-error: the toy project's test, embedded as text, not imported as code
import versionTest from "../../workspace/test/version.test.ts" with { type: "text" };

/**
 * The bundled toy project, embedded as text so the compiled binary carries it: a version
 * comparer whose tests fail because its parser keeps the parts as text.
 */
export const TOY_FILES: Record<string, string> = {
  "README.md": readme,
  "NOTES.md": notes,
  "package.json": packageJson as unknown as string,
  "glassbox.json": glassboxJson as unknown as string,
  "AGENTS.md": agents,
  "prompts.lock": promptsLock as unknown as string,
  "src/version.ts": versionSource as string,
  "test/version.test.ts": versionTest as string,
};

/** Writes a fresh copy of the toy project into `into/workspace` and returns its path. */
export function copyToyWorkspace(into = mkdtempSync(join(tmpdir(), "glassbox-demo-"))): string {
  const root = join(into, "workspace");
  for (const [path, text] of Object.entries(TOY_FILES)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}
