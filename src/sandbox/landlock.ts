import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Confinement } from "./rules.ts";

/**
 * Landlock and the subreaper through bun:ffi: the Linux fallback when bwrap cannot make user
 * namespaces. Only the launcher process (src/sandbox/launcher.ts) calls the functions that change
 * the process; they are never called in glassbox itself.
 */

// The generic syscall table: the same numbers on x86-64 and arm64.
const SYS_LANDLOCK_CREATE_RULESET = 444;
const SYS_LANDLOCK_ADD_RULE = 445;
const SYS_LANDLOCK_RESTRICT_SELF = 446;
const LANDLOCK_CREATE_RULESET_VERSION = 1;
const LANDLOCK_RULE_PATH_BENEATH = 1;
const PR_SET_PDEATHSIG = 1;
const PR_SET_CHILD_SUBREAPER = 36;
const PR_SET_NO_NEW_PRIVS = 38;
const O_PATH = 0o10000000;
const O_CLOEXEC = 0o2000000;
const SIGTERM = 15;

const bit = (n: number) => 1n << BigInt(n);
const FS = {
  EXECUTE: bit(0),
  WRITE_FILE: bit(1),
  READ_FILE: bit(2),
  READ_DIR: bit(3),
  REMOVE_DIR: bit(4),
  REMOVE_FILE: bit(5),
  MAKE_CHAR: bit(6),
  MAKE_DIR: bit(7),
  MAKE_REG: bit(8),
  MAKE_SOCK: bit(9),
  MAKE_FIFO: bit(10),
  MAKE_BLOCK: bit(11),
  MAKE_SYM: bit(12),
  REFER: bit(13),
  TRUNCATE: bit(14),
  IOCTL_DEV: bit(15),
};
const NET_ALL = bit(0) | bit(1); // bind and connect TCP
const SCOPE_ABSTRACT_UNIX_SOCKET = bit(0);
const SCOPE_SIGNAL = bit(1);

/** The rights Landlock knows at each ABI: a right the kernel does not know cannot be handled. */
export function handledFsRights(abi: number): bigint {
  let rights = bit(13) - 1n;
  if (abi >= 2) rights |= FS.REFER;
  if (abi >= 3) rights |= FS.TRUNCATE;
  if (abi >= 5) rights |= FS.IOCTL_DEV;
  return rights;
}
const FILE_RIGHTS = FS.EXECUTE | FS.WRITE_FILE | FS.READ_FILE | FS.TRUNCATE | FS.IOCTL_DEV;
const READ_RIGHTS = FS.EXECUTE | FS.READ_FILE | FS.READ_DIR;
const WRITE_RIGHTS = bit(16) - 1n;

/** One Landlock rule: these rights beneath this path. */
export interface LandlockRule {
  path: string;
  rights: bigint;
}

/** Devices every program expects to open for writing. */
export const WRITABLE_DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom", "/dev/shm", "/dev/pts", "/dev/ptmx"];

/**
 * The rules for a confinement. Landlock only allows, so "all but X" is built by walking down
 * towards each excluded path and granting its siblings: the folders on the way keep only the
 * right to be listed. Files created at such a folder's top (the workspace root) are therefore
 * refused; existing files there stay writable.
 */
export function landlockRules(rules: Confinement, abi: number): LandlockRule[] {
  const handled = handledFsRights(abi);
  const out: LandlockRule[] = [];
  const hidden = rules.hidden.map((entry) => entry.path);
  grantAllBut("/", READ_RIGHTS, hidden, out);
  for (const folder of rules.writable) grantAllBut(folder, WRITE_RIGHTS, [...hidden, ...rules.readOnly], out);
  for (const device of WRITABLE_DEVICES) if (kindOf(device)) out.push({ path: device, rights: WRITE_RIGHTS });
  return out.map((rule) => ({ path: rule.path, rights: (kindOf(rule.path) === "folder" ? rule.rights : rule.rights & FILE_RIGHTS) & handled }));
}

function grantAllBut(path: string, rights: bigint, excluded: string[], out: LandlockRule[]): void {
  if (excluded.includes(path)) return;
  const inside = excluded.filter((other) => other.startsWith(path === "/" ? "/" : path + "/"));
  if (inside.length === 0 || kindOf(path) !== "folder") {
    if (kindOf(path)) out.push({ path, rights });
    return;
  }
  out.push({ path, rights: FS.READ_DIR & rights ? FS.READ_DIR : 0n });
  let names: string[];
  try {
    names = readdirSync(path);
  } catch {
    return;
  }
  for (const name of names) grantAllBut(join(path, name), rights, inside, out);
}

function kindOf(path: string): "folder" | "file" | null {
  try {
    return statSync(path).isDirectory() ? "folder" : "file";
  } catch {
    return null;
  }
}

type Libc = ReturnType<typeof openLibc>;
let libc: Libc | null | undefined;

/** Loaded on first use: a start that confines checks with bwrap, or not at all, never needs it. */
function ffi(): typeof import("bun:ffi") {
  return require("bun:ffi");
}

function openLibc() {
  const { dlopen, FFIType } = ffi();
  const symbols = {
    syscall: { args: [FFIType.i64, FFIType.i64, FFIType.i64, FFIType.i64, FFIType.i64], returns: FFIType.i64 },
    prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
    open: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
  } as const;
  for (const name of ["libc.so.6", `libc.musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`]) {
    try {
      return dlopen(name, symbols).symbols;
    } catch {
      // Try the next name.
    }
  }
  throw new Error("no C library found for bun:ffi");
}

function lib(): Libc | null {
  if (libc !== undefined) return libc;
  try {
    libc = process.platform === "linux" ? openLibc() : null;
  } catch {
    libc = null;
  }
  return libc;
}

/** The kernel's Landlock ABI version, or 0 when it has none (or it is switched off). */
export function landlockAbi(): number {
  const c = lib();
  if (!c) return 0;
  const abi = Number(c.syscall(SYS_LANDLOCK_CREATE_RULESET, 0, 0, LANDLOCK_CREATE_RULESET_VERSION, 0));
  return abi > 0 ? abi : 0;
}

/** Orphans of this process's descendants come back to it instead of to init, so it can kill them. */
export function becomeSubreaper(): boolean {
  const c = lib();
  return !!c && c.prctl(PR_SET_CHILD_SUBREAPER, 1n, 0n, 0n, 0n) === 0;
}

/** SIGTERM to this process when its parent (glassbox) dies, so it still kills what it started. */
export function terminateWithParent(): void {
  lib()?.prctl(PR_SET_PDEATHSIG, BigInt(SIGTERM), 0n, 0n, 0n);
}

/** Confines this thread (and every process it starts from now on) to the rules; throws when the kernel refuses. */
export function restrictSelf(rules: Confinement): void {
  const c = lib();
  const abi = landlockAbi();
  if (!c || abi === 0) throw new Error("Landlock is not available");
  const { ptr } = ffi();
  const attr = new BigUint64Array([handledFsRights(abi), !rules.network && abi >= 4 ? NET_ALL : 0n, abi >= 6 ? SCOPE_SIGNAL | (rules.network ? 0n : SCOPE_ABSTRACT_UNIX_SOCKET) : 0n]);
  const size = abi >= 6 ? 24 : abi >= 4 ? 16 : 8;
  const ruleset = Number(c.syscall(SYS_LANDLOCK_CREATE_RULESET, ptr(attr), size, 0, 0));
  if (ruleset < 0) throw new Error(`landlock_create_ruleset failed (${ruleset})`);
  try {
    for (const rule of landlockRules(rules, abi)) {
      if (rule.rights === 0n) continue;
      const fd = c.open(ptr(Buffer.from(rule.path + "\0")), O_PATH | O_CLOEXEC);
      if (fd < 0) continue; // Gone since the walk: nothing to grant.
      const beneath = new Uint8Array(12); // struct landlock_path_beneath_attr, packed
      const view = new DataView(beneath.buffer);
      view.setBigUint64(0, rule.rights, true);
      view.setInt32(8, fd, true);
      const added = Number(c.syscall(SYS_LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, ptr(beneath), 0));
      c.close(fd);
      if (added !== 0) throw new Error(`landlock_add_rule failed for ${rule.path} (${added})`);
    }
    if (c.prctl(PR_SET_NO_NEW_PRIVS, 1n, 0n, 0n, 0n) !== 0) throw new Error("PR_SET_NO_NEW_PRIVS failed");
    const restricted = Number(c.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0, 0, 0));
    if (restricted !== 0) throw new Error(`landlock_restrict_self failed (${restricted})`);
  } finally {
    c.close(ruleset);
  }
}
