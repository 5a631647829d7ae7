import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, extname, join } from "node:path";
import { runCheck, type Checks } from "./checks.ts";
import { parseProblem } from "../map/syntax.ts";

const LOADERS: Record<string, "ts" | "tsx" | "js" | "jsx"> = {
  ".ts": "ts",
  ".mts": "ts",
  ".cts": "ts",
  ".tsx": "tsx",
  ".js": "js",
  ".mjs": "js",
  ".cjs": "js",
  ".jsx": "jsx",
};

/**
 * Whether a candidate file would parse, before it is written: TypeScript and JavaScript with
 * Bun's own transpiler, JSON by parsing, a type the config's `edit_checks` names by its argv (run
 * on a temporary copy), every other language the map parses with its tree-sitter parser, where
 * only an error the file did not have before counts (`before`: its text now, null for a new file).
 * Returns the error in one short paragraph, or null when it parses.
 */
export async function syntaxProblem(path: string, text: string, editChecks: Checks, signal: AbortSignal, before: string | null = null): Promise<string | null> {
  const extension = extname(path).toLowerCase();
  const loader = LOADERS[extension];
  if (loader) return transpilerProblem(text, loader);
  if (extension === ".json") {
    try {
      JSON.parse(text);
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }
  const check = editChecks[extension];
  if (check) return commandProblem(path, text, check, signal);
  const problem = await parseProblem(path, text);
  return problem && (before === null || !(await parseProblem(path, before))) ? problem : null;
}

function transpilerProblem(text: string, loader: "ts" | "tsx" | "js" | "jsx"): string | null {
  try {
    new Bun.Transpiler({ loader }).transformSync(text);
    return null;
  } catch (error) {
    const messages = (error as { errors?: unknown[] }).errors ?? [error];
    return messages
      .slice(0, 3)
      .map((message) => {
        const { position } = message as { position?: { line: number; column: number; lineText: string } };
        const what = (message as Error).message ?? String(message);
        return position ? `line ${position.line}, column ${position.column}: ${what}: ${position.lineText.trim().slice(0, 120)}` : what;
      })
      .join("; ");
  }
}

async function commandProblem(path: string, text: string, check: Checks[string], signal: AbortSignal): Promise<string | null> {
  const folder = mkdtempSync(join(tmpdir(), "glassbox-syntax-"));
  const candidate = join(folder, basename(path));
  try {
    writeFileSync(candidate, text);
    const outcome = await runCheck({ ...check, argv: [...check.argv, candidate] }, folder, signal);
    if (outcome.exitCode === 0) return null;
    // The model sees its own path, never the temporary one on this machine.
    const output = outcome.output.split(candidate).join(path).split(folder).join(".").trim();
    return output.slice(0, 600) || `the syntax check exited ${outcome.exitCode ?? "without finishing"}`;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
