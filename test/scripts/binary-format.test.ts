import { describe, expect, test } from "bun:test";
import { parseHeaders } from "../../scripts/binary-format.ts";

/** A minimal ELF64 header with one program header; `interp` adds a PT_INTERP segment. */
function elf(machine: number, interp?: string): Buffer {
  const bytes = Buffer.alloc(256);
  bytes.writeUInt32BE(0x7f454c46, 0);
  bytes[4] = 2; // 64-bit
  bytes[5] = 1; // little-endian
  bytes.writeUInt16LE(interp ? 3 : 2, 0x10); // ET_DYN with an interpreter, or ET_EXEC
  bytes.writeUInt16LE(machine, 0x12);
  bytes.writeBigUInt64LE(64n, 0x20); // program headers right after the ELF header
  bytes.writeUInt16LE(56, 0x36);
  bytes.writeUInt16LE(1, 0x38);
  bytes.writeUInt32LE(interp ? 3 : 1, 64);
  if (interp) {
    bytes.writeBigUInt64LE(160n, 64 + 8);
    bytes.writeBigUInt64LE(BigInt(interp.length + 1), 64 + 32);
    bytes.write(interp, 160, "latin1");
  }
  return bytes;
}

function machO(cpu: number, commands: number[]): Buffer {
  const bytes = Buffer.alloc(32 + commands.length * 16);
  bytes.writeUInt32LE(0xfeedfacf, 0);
  bytes.writeUInt32LE(cpu, 4);
  bytes.writeUInt32LE(2, 12); // MH_EXECUTE
  bytes.writeUInt32LE(commands.length, 16);
  commands.forEach((command, i) => {
    bytes.writeUInt32LE(command, 32 + i * 16);
    bytes.writeUInt32LE(16, 32 + i * 16 + 4);
  });
  return bytes;
}

function pe(machine: number, magic: number, subsystem: number): Buffer {
  const bytes = Buffer.alloc(256);
  bytes.write("MZ", 0, "latin1");
  bytes.writeUInt32LE(0x80, 0x3c);
  bytes.write("PE\0\0", 0x80, "latin1");
  bytes.writeUInt16LE(machine, 0x84);
  bytes.writeUInt16LE(magic, 0x80 + 24);
  bytes.writeUInt16LE(subsystem, 0x80 + 24 + 68);
  return bytes;
}

describe("reading an executable's headers", () => {
  test.each([
    ["ELF x86-64 with glibc's loader", elf(0x3e, "/lib64/ld-linux-x86-64.so.2"), { format: "elf", arch: "x64", executable: true, interpreter: "/lib64/ld-linux-x86-64.so.2" }],
    ["ELF aarch64 with glibc's loader", elf(0xb7, "/lib/ld-linux-aarch64.so.1"), { format: "elf", arch: "arm64", executable: true, interpreter: "/lib/ld-linux-aarch64.so.1" }],
    ["static ELF x86-64", elf(0x3e), { format: "elf", arch: "x64", executable: true, interpreter: null }],
    ["signed Mach-O arm64", machO(0x0100000c, [0x19, 0x1d]), { format: "mach-o", arch: "arm64", executable: true, signed: true }],
    ["unsigned Mach-O x86-64", machO(0x01000007, [0x19, 0x2]), { format: "mach-o", arch: "x64", executable: true, signed: false }],
    ["PE32+ x86-64 console", pe(0x8664, 0x20b, 3), { format: "pe", arch: "x64", pe32plus: true, console: true }],
    ["PE32 arm64 GUI", pe(0xaa64, 0x10b, 2), { format: "pe", arch: "arm64", pe32plus: false, console: false }],
  ])("%s", (_, bytes, want) => {
    expect(parseHeaders(bytes)).toEqual(want as never);
  });

  test.each([
    ["a shell script", Buffer.from("#!/bin/sh\necho hi\n")],
    ["an empty file", Buffer.alloc(0)],
    ["ELF for RISC-V", elf(0xf3)],
    ["32-bit ELF", Object.assign(elf(0x3e), { 4: 1 })],
    ["Mach-O for PowerPC", machO(0x12, [])],
    ["MZ without a PE header", Buffer.concat([Buffer.from("MZ"), Buffer.alloc(254)])],
  ])("refuses %s", (_, bytes) => {
    expect(() => parseHeaders(bytes, "x")).toThrow(/^x: /);
  });
});
