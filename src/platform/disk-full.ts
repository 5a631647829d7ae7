import { relative, sep } from "node:path";

/** ENOSPC (no space left on device) or EDQUOT (the person's disk quota is used up). */
export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === "ENOSPC" || code === "EDQUOT";
}

type Listener = (path: string) => void;
const listeners = new Set<Listener>();

/**
 * One of glassbox's own records (event log, session, wire log, plan): written when the disk has
 * room; on a full disk the write is skipped and reported to whoever watches (a run, which then
 * stops as `disk_full`), never thrown, so glassbox does not crash with its record half kept.
 * Returns whether it was written. Any other error is thrown as before.
 */
export function writeSoftly(path: string, write: () => void): boolean {
  try {
    write();
    return true;
  } catch (error) {
    if (!isDiskFull(error)) throw error;
    for (const listener of listeners) listener(path);
    return false;
  }
}

/**
 * Watches glassbox's own writes under a workspace while a run runs: the first one that meets a
 * full disk aborts `signal`, which ends the run, and is kept to say where.
 */
export class DiskFullWatch {
  private readonly abort = new AbortController();
  /** Workspace-relative path of the first write that met a full disk; null while none has. */
  failedAt: string | null = null;
  private readonly listener: Listener = (path) => {
    if (this.failedAt !== null || !path.startsWith(this.root + sep)) return;
    this.failedAt = relative(this.root, path);
    this.abort.abort();
  };

  constructor(private readonly root: string) {
    listeners.add(this.listener);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** The stop event's reason once the disk was full. */
  reason(): string {
    return `no space left on device writing ${this.failedAt}, so glassbox stopped the run rather than lose its record; free some space, then continue the session`;
  }

  close(): void {
    listeners.delete(this.listener);
  }
}
