import { Refusal } from "../../protocol/refusal.ts";

/**
 * A glob as `.gitignore` reads one (CONTRACT.md "Default tools"): without a `/` it matches a
 * file's name at any depth (`*.ts`); with one it matches the path from the workspace root
 * (`src/**\/*.test.ts`), a leading `/` or `./` changing nothing and a trailing `/` meaning
 * everything below that folder. Bun.Glob does the matching.
 */
export function compileGlob(pattern: string, argument: string): (path: string) => boolean {
  let glob = pattern.trim().replace(/^\.?\//, "");
  if (glob.endsWith("/")) glob += "**";
  if (!glob) throw new Refusal(`Argument \`${argument}\` is empty; give a glob such as \`*.ts\` or \`src/**/*.test.ts\`.`);
  const matcher = new Bun.Glob(glob);
  if (glob.includes("/")) return (path) => matcher.match(path);
  return (path) => matcher.match(path.slice(path.lastIndexOf("/") + 1));
}
