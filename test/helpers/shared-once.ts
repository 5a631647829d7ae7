/**
 * What several test files need and takes seconds to make (the compiled binary, the release), made
 * once per test run. `npm test` runs its files in two processes (scripts/test.ts) and gives both
 * GLASSBOX_TEST_SHARED, a folder of its own: the first process to ask makes the thing there, the
 * other waits for it. A bare `bun test` (one process) makes it once in a temp folder of its own.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempFolder } from "./workspace.ts";

const made = new Map<string, Promise<unknown>>();

/** How long a process waits for another to make a shared thing: a release of seven binaries on a loaded machine. */
const WAIT_MS = 600_000;

export function sharedOnce<T>(name: string, make: (folder: string) => Promise<T>): Promise<T> {
  let thing = made.get(name) as Promise<T> | undefined;
  if (!thing) {
    const shared = process.env.GLASSBOX_TEST_SHARED;
    thing = shared ? acrossProcesses(join(shared, name), make) : make(tempFolder(name));
    made.set(name, thing);
  }
  return thing;
}

/** mkdir is atomic: whoever makes the folder makes the thing and writes its result beside it (the folder holds only the thing); the rest read it. */
async function acrossProcesses<T>(folder: string, make: (folder: string) => Promise<T>): Promise<T> {
  const result = `${folder}.result.json`;
  const failure = `${folder}.failure.txt`;
  try {
    mkdirSync(folder);
  } catch {
    const deadline = Date.now() + WAIT_MS;
    while (!existsSync(result) && !existsSync(failure)) {
      if (Date.now() > deadline) throw new Error(`waited ${WAIT_MS / 1000} s for another test process to make ${folder}`);
      await Bun.sleep(100);
    }
    if (existsSync(failure)) throw new Error(`another test process failed to make ${folder}: ${readFileSync(failure, "utf8")}`);
    return JSON.parse(readFileSync(result, "utf8")) as T;
  }
  try {
    const thing = await make(folder);
    writeFileSync(result, JSON.stringify(thing));
    return thing;
  } catch (error) {
    writeFileSync(failure, String((error as Error)?.stack ?? error));
    throw error;
  }
}
