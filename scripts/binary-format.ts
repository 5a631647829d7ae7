/**
 * What an executable is, read from its own headers rather than trusted from the build: Mach-O,
 * ELF or PE, for which CPU, with which program interpreter (ELF) and whether it carries a code
 * signature (Mach-O: Apple Silicon refuses to run an unsigned binary).
 */
import fs from "node:fs";

export type Arch = "x64" | "arm64";

export type BinaryFormat =
  | { format: "mach-o"; arch: Arch; executable: boolean; signed: boolean }
  | { format: "elf"; arch: Arch; executable: boolean; interpreter: string | null }
  | { format: "pe"; arch: Arch; pe32plus: boolean; console: boolean };

/** Enough of the file for every header we read: ELF program headers and Mach-O load commands sit near the start. */
const HEAD_BYTES = 1 << 16;

export function readBinaryFormat(file: string): BinaryFormat {
  const fd = fs.openSync(file, "r");
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const length = fs.readSync(fd, head, 0, HEAD_BYTES, 0);
    return parseHeaders(head.subarray(0, length), file);
  } finally {
    fs.closeSync(fd);
  }
}

export function parseHeaders(bytes: Buffer, name = "file"): BinaryFormat {
  if (bytes.length >= 4 && bytes.readUInt32LE(0) === 0xfeedfacf) return machO(bytes, name);
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === 0x7f454c46) return elf(bytes, name);
  if (bytes.length >= 2 && bytes.toString("latin1", 0, 2) === "MZ") return pe(bytes, name);
  throw new Error(`${name}: not a 64-bit Mach-O, ELF or PE executable`);
}

const MACHO_CPU: Record<number, Arch> = { 0x01000007: "x64", 0x0100000c: "arm64" };
const LC_CODE_SIGNATURE = 0x1d;

function machO(bytes: Buffer, name: string): BinaryFormat {
  const arch = MACHO_CPU[bytes.readUInt32LE(4)];
  if (!arch) throw new Error(`${name}: Mach-O for an unknown CPU type 0x${bytes.readUInt32LE(4).toString(16)}`);
  const commands = bytes.readUInt32LE(16);
  let signed = false;
  for (let offset = 32, i = 0; i < commands && offset + 8 <= bytes.length; i++) {
    if (bytes.readUInt32LE(offset) === LC_CODE_SIGNATURE) signed = true;
    offset += bytes.readUInt32LE(offset + 4);
  }
  return { format: "mach-o", arch, executable: bytes.readUInt32LE(12) === 2, signed };
}

const ELF_MACHINE: Record<number, Arch> = { 0x3e: "x64", 0xb7: "arm64" };
const PT_INTERP = 3;

function elf(bytes: Buffer, name: string): BinaryFormat {
  if (bytes[4] !== 2 || bytes[5] !== 1) throw new Error(`${name}: ELF, but not 64-bit little-endian`);
  const arch = ELF_MACHINE[bytes.readUInt16LE(0x12)];
  if (!arch) throw new Error(`${name}: ELF for an unknown machine 0x${bytes.readUInt16LE(0x12).toString(16)}`);
  const type = bytes.readUInt16LE(0x10);
  const phoff = Number(bytes.readBigUInt64LE(0x20));
  const phentsize = bytes.readUInt16LE(0x36);
  const phnum = bytes.readUInt16LE(0x38);
  let interpreter: string | null = null;
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + 40 > bytes.length) break;
    if (bytes.readUInt32LE(at) !== PT_INTERP) continue;
    const offset = Number(bytes.readBigUInt64LE(at + 8));
    const size = Number(bytes.readBigUInt64LE(at + 32));
    interpreter = bytes.toString("latin1", offset, offset + size).replace(/\0+$/, "");
  }
  // ET_EXEC, or ET_DYN with an interpreter (a position-independent executable).
  return { format: "elf", arch, executable: type === 2 || (type === 3 && interpreter !== null), interpreter };
}

const PE_MACHINE: Record<number, Arch> = { 0x8664: "x64", 0xaa64: "arm64" };
const SUBSYSTEM_CONSOLE = 3;

function pe(bytes: Buffer, name: string): BinaryFormat {
  const header = bytes.readUInt32LE(0x3c);
  if (bytes.toString("latin1", header, header + 4) !== "PE\0\0") throw new Error(`${name}: MZ header without a PE signature`);
  const arch = PE_MACHINE[bytes.readUInt16LE(header + 4)];
  if (!arch) throw new Error(`${name}: PE for an unknown machine 0x${bytes.readUInt16LE(header + 4).toString(16)}`);
  const optional = header + 24;
  return { format: "pe", arch, pe32plus: bytes.readUInt16LE(optional) === 0x20b, console: bytes.readUInt16LE(optional + 68) === SUBSYSTEM_CONSOLE };
}
