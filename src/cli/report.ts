import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { CliArgs } from "./args.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { mergeArms } from "../eval/results.ts";
import { htmlReport } from "../eval/html-report.ts";

/** `glassbox report RESULTS… --out report.html`: folders of one arm merged, one self-contained HTML file written. */
export async function writeReport(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): Promise<number> {
  if (!args.out) throw new UsageError("report needs --out FILE.html (where to write the report)");
  const arms = mergeArms(args.paths!);
  const path = resolve(args.out);
  const html = await htmlReport(arms);
  try {
    writeFileSync(path, html);
  } catch (error) {
    throw new UsageError(`report: cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); check the --out path`);
  }
  out(`wrote ${path}: ${arms.length} arm(s), ${arms.reduce((sum, arm) => sum + arm.verdicts.length, 0)} run(s)`);
  return 0;
}
