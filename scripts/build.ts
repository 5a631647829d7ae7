/**
 * Build the single glassbox binary:
 *   bun scripts/build.ts            → dist/glassbox  (bun build --compile --minify --splitting
 *                                      --bytecode src/cli/bin.ts; see STARTUP below)
 *   bun scripts/build.ts --hello    → dist/hello     (a compiled hello world, for size comparison)
 * Prints the output's size. Exit code 1 if the build fails. scripts/release.ts builds every
 * platform's binary with the same function.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { commitOf, targetName, type BuildInfo } from "../src/platform/build-info.ts";

const root = path.resolve(import.meta.dir, "..");
/** What every glassbox binary is built from. */
export const GLASSBOX_ENTRY = path.join(root, "src/cli/bin.ts");

/**
 * STARTUP (docs/decisions.md, "Startup (issue 16)"): what makes the binary start in tens of
 * milliseconds rather than a hundred and fifty.
 * - `splitting`: every dynamic import stays its own chunk inside the one binary, so a command
 *   loads only its own code (the TUI does not parse vega for `glassbox report`).
 * - `bytecode`: the chunks are shipped as JavaScriptCore bytecode, nothing is parsed at start.
 * - `bytecodeOrder`: the bytecode a start uses comes first in the binary (a profile recorded by
 *   scripts/record-order.ts), so a start reads and maps less of the file.
 * - `jitPolicy`: the tier-up thresholds start multiplied by STARTUP_JIT_POLICY, so code that runs
 *   once at start stays in the interpreter instead of being compiled (and kept resident); the
 *   program puts the normal policy back when real work starts (src/platform/jit.ts).
 */
export const STARTUP_JIT_POLICY = 1000;
/** The recorded profile of a TUI start; a stale one still applies (functions are matched by hash). */
export const BYTECODE_ORDER = path.join(root, "scripts/startup.order");

export interface BuildResult {
  outfile: string;
  bytes: number;
  ms: number;
}

/**
 * `target` is a Bun compile target (`bun-darwin-arm64`); without one, the binary is for this
 * machine. Either way the binary knows its commit and target for `--version`.
 */
export async function buildBinary(entry: string, outfile: string, target?: Bun.Build.CompileTarget): Promise<BuildResult> {
  const started = performance.now();
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  const info: BuildInfo = { commit: commitOf(root), target: target ? target.replace(/^bun-/, "") : targetName(process.platform, process.arch) };
  const result = await Bun.build({
    entrypoints: [entry],
    define: { GLASSBOX_BUILD: JSON.stringify(info) },
    compile: {
      ...(target ? { target } : {}),
      outfile,
      jitPolicy: STARTUP_JIT_POLICY,
      bytecodeOrder: fs.existsSync(BYTECODE_ORDER) && BYTECODE_ORDER,
      // The binary runs inside the user's project: it must not pick up that project's .env
      // (it would leak into the agent's environment and its checks) or bunfig.toml.
      autoloadDotenv: false,
      autoloadBunfig: false,
    },
    minify: true,
    splitting: true,
    bytecode: true,
    format: "esm",
    // blessed's terminal widget (never loaded by src/tui/blessed.ts) needs these native addons.
    external: ["term.js", "pty.js"],
  });
  if (!result.success) {
    throw new AggregateError(result.logs, `build of ${path.relative(root, entry)} failed:\n${result.logs.join("\n")}`);
  }
  return { outfile, bytes: fs.statSync(outfile).size, ms: performance.now() - started };
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

if (import.meta.main) {
  const hello = process.argv.includes("--hello");
  try {
    let built: BuildResult;
    if (hello) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-hello-"));
      const entry = path.join(dir, "hello.ts");
      fs.writeFileSync(entry, 'console.log("hello world");\n');
      try {
        built = await buildBinary(entry, path.join(root, "dist/hello"));
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    } else {
      built = await buildBinary(GLASSBOX_ENTRY, path.join(root, "dist/glassbox"));
    }
    console.log(`${path.relative(root, built.outfile)}: ${megabytes(built.bytes)} (${built.bytes} bytes), built in ${Math.round(built.ms)} ms`);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
