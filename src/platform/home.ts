import { homedir } from "node:os";

/** The home folder: HOME (tests and sandboxes set it), else the system's. */
export function homeFolder(env: Record<string, string | undefined> = process.env): string {
  return env.HOME || homedir();
}

/** A path under the home folder written with `~`, as a person reads it: `~/models/x.gguf`. */
export function tildePath(path: string, home: string | undefined): string {
  if (!home) return path;
  if (path === home) return "~";
  return path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}
