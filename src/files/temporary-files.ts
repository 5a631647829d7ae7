import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { glassboxFolder, makeGlassboxFolder } from "../platform/glassbox-folder.ts";
import { syncFile } from "../platform/append-line.ts";
import { processAlive } from "../platform/process-alive.ts";

/**
 * Where a file's new content is written before it is renamed over the file, so that a kill at
 * any instant leaves nothing in the person's tree: `.glassbox/tmp/`, which no tool and no
 * `git status` sees, whenever it is on the file's device (a rename cannot cross devices).
 * Otherwise (another filesystem mounted inside the workspace) beside the file, once a note under
 * `.glassbox/tmp/` names it. Every name starts with the writer's pid: the next start, and undo,
 * remove what a glassbox that is gone left.
 */
export interface Temporary {
  path: string;
  /** Forgets the note naming a temporary beside its file, once it was renamed or removed. */
  release(): void;
}

let made = 0;

export function temporaryFolder(workspaceRoot: string): string {
  return glassboxFolder(workspaceRoot, "tmp");
}

/** In `.glassbox/tmp/` when that shares the device of the folder `real` goes in, else beside `real`. */
export function temporaryFor(workspaceRoot: string, real: string): Temporary {
  const folder = makeGlassboxFolder(temporaryFolder(workspaceRoot));
  if (statSync(folder).dev !== statSync(dirname(real)).dev) return temporaryBeside(workspaceRoot, real);
  return { path: join(folder, `${process.pid}-${++made}.tmp`), release: () => {} };
}

/** Beside `real`, named first in a note on the disk: without it the next start could not find it. */
export function temporaryBeside(workspaceRoot: string, real: string): Temporary {
  const path = join(dirname(real), `.${basename(real)}.glassbox-${process.pid}.tmp`);
  const note = join(makeGlassboxFolder(temporaryFolder(workspaceRoot)), `${process.pid}-${++made}.beside`);
  writeFileSync(note, relative(workspaceRoot, path));
  syncFile(note);
  return { path, release: () => rmSync(note, { force: true }) };
}

/**
 * Removes what the writes of glassbox processes that are gone left (a kill mid-write): their
 * temporaries, and the ones their notes name beside a file. Returns them, workspace-relative.
 */
export function removeKilledWriteLeftovers(workspaceRoot: string): string[] {
  const folder = temporaryFolder(workspaceRoot);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    // A command's overlay or snapshot folders (src/sandbox/overlay.ts, src/tools/command-snapshot.ts): nothing in them reached the workspace unjournaled.
    const folderPid = Number(/^(\d+)-(command|snapshot)-\d+$/.exec(name)?.[1]);
    if (folderPid && !processAlive(folderPid)) {
      removeFolderForcibly(join(folder, name));
      removed.push(relative(workspaceRoot, join(folder, name)));
      continue;
    }
    const pid = Number(/^(\d+)-\d+\.(tmp|beside)$/.exec(name)?.[1]);
    if (!pid || processAlive(pid)) continue;
    const beside = name.endsWith(".beside") ? namedBeside(workspaceRoot, join(folder, name)) : null;
    for (const path of beside ? [beside, join(folder, name)] : [join(folder, name)]) {
      rmSync(path, { force: true });
      removed.push(relative(workspaceRoot, path));
    }
  }
  return removed;
}

/** Removes a folder and all in it, folders without rights included (overlayfs leaves its work folder so). */
export function removeFolderForcibly(path: string): void {
  Bun.spawnSync(["chmod", "-R", "u+rwx", path], { stdout: "ignore", stderr: "ignore" });
  rmSync(path, { recursive: true, force: true });
}

/** The temporary a note names, only when it is inside the workspace and named as glassbox names them: a damaged note removes nothing else. */
function namedBeside(workspaceRoot: string, note: string): string | null {
  const path = resolve(workspaceRoot, readFileSync(note, "utf8"));
  return path.startsWith(workspaceRoot + sep) && /^\..+\.glassbox-\d+\.tmp$/.test(basename(path)) ? path : null;
}

