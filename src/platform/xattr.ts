/**
 * One extended attribute, read through bun:ffi (Node has no xattr API): overlayfs marks a folder
 * that was removed and made again inside the overlay "opaque", and in a user namespace
 * (`userxattr`) it does so with `user.overlay.opaque` = "y".
 */
type Lgetxattr = (path: Uint8Array, name: Uint8Array, value: Uint8Array, size: number) => number | bigint;

let lgetxattr: Lgetxattr | null | undefined;

function libc(): Lgetxattr | null {
  if (lgetxattr !== undefined) return lgetxattr;
  lgetxattr = null;
  if (process.platform !== "linux") return null;
  const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
  const symbols = { lgetxattr: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.u64], returns: FFIType.i64 } } as const;
  for (const name of ["libc.so.6", `libc.musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`]) {
    try {
      const found = dlopen(name, symbols).symbols;
      lgetxattr = (path, key, value, size) => found.lgetxattr(path, key, value, size);
      break;
    } catch {
      // Try the next name.
    }
  }
  return lgetxattr;
}

const cString = (text: string) => Buffer.from(`${text}\0`, "utf8");

/** Whether overlayfs marked this upper folder opaque (its lower folder's entries are hidden). */
export function isOpaque(folder: string): boolean {
  const read = libc();
  if (!read) return false;
  const value = new Uint8Array(4);
  for (const name of ["user.overlay.opaque", "trusted.overlay.opaque"]) {
    const size = Number(read(cString(folder), cString(name), value, value.length));
    if (size > 0 && value[0] === 0x79) return true;
  }
  return false;
}
