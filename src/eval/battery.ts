import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import packed from "./battery.json.gz" with { type: "file" };
import { BATTERY } from "./tune.ts";

/**
 * tune's battery, carried inside glassbox (the binary included) so tune runs from any folder:
 * the battery's task files and the projects and acceptance tests they name, from `evals/`, as one
 * gzipped JSON map (path under evals/ → text) written by `bun scripts/pack-battery.ts`;
 * test/eval/battery.test.ts fails while it differs from `evals/`.
 */

/** Every file the battery needs, relative to an `evals/` folder: the tasks, then what they name. */
export function batteryPaths(evals: string): string[] {
  const paths = new Set<string>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder).sort()) {
      const path = join(folder, entry);
      if (statSync(path).isDirectory()) {
        if (entry !== "node_modules" && entry !== ".glassbox") walk(path);
      } else paths.add(relative(evals, path));
    }
  };
  for (const name of BATTERY) {
    const file = join(evals, "tasks", `${name}.json`);
    paths.add(relative(evals, file));
    const task = JSON.parse(readFileSync(file, "utf8")) as { workspace?: string; pass: Array<{ accept?: string }> };
    if (task.workspace && task.workspace !== "toy") walk(resolve(dirname(file), task.workspace));
    for (const criterion of task.pass) if (criterion.accept) paths.add(relative(evals, resolve(dirname(file), criterion.accept)));
  }
  return [...paths];
}

/** The files of an `evals/` folder the battery needs, path → text: what the pack holds. */
export function batteryFilesIn(evals: string): Record<string, string> {
  return Object.fromEntries(batteryPaths(evals).map((path) => [path, readFileSync(join(evals, path), "utf8")]));
}

/** The packed battery, path → text. */
export function packedBattery(): Record<string, string> {
  return JSON.parse(new TextDecoder().decode(Bun.gunzipSync(readFileSync(packed)))) as Record<string, string>;
}

/** Writes the packed battery into `into` (as evals/ lays it out) and returns its task folder. */
export function unpackBattery(into: string): string {
  for (const [path, text] of Object.entries(packedBattery())) {
    mkdirSync(dirname(join(into, path)), { recursive: true });
    writeFileSync(join(into, path), text);
  }
  return join(into, "tasks");
}
