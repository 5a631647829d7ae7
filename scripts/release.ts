/**
 * The release: one binary per platform, cross-compiled with `bun build --compile --target=…`
 * (Bun fetches each target's runtime from the npm registry), into dist/release/ with a
 * SHA256SUMS file that `sha256sum -c` reads. Each binary's headers are read back and must
 * match its target before the release counts as built.
 *
 *   bun scripts/release.ts [--out DIR]
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { GLASSBOX_ENTRY, buildBinary, megabytes } from "./build.ts";
import { readBinaryFormat, type BinaryFormat } from "./binary-format.ts";

const root = path.resolve(import.meta.dir, "..");

export interface ReleaseTarget {
  file: string;
  target: Bun.Build.CompileTarget;
  /** What the file's headers must say. */
  expect: BinaryFormat;
}

const GLIBC_X64 = "/lib64/ld-linux-x86-64.so.2";

export const RELEASE_TARGETS: ReleaseTarget[] = [
  { file: "glassbox-darwin-arm64", target: "bun-darwin-arm64", expect: { format: "mach-o", arch: "arm64", executable: true, signed: true } },
  { file: "glassbox-darwin-x64", target: "bun-darwin-x64", expect: { format: "mach-o", arch: "x64", executable: true, signed: true } },
  { file: "glassbox-linux-x64", target: "bun-linux-x64", expect: { format: "elf", arch: "x64", executable: true, interpreter: GLIBC_X64 } },
  { file: "glassbox-linux-x64-baseline", target: "bun-linux-x64-baseline", expect: { format: "elf", arch: "x64", executable: true, interpreter: GLIBC_X64 } },
  { file: "glassbox-linux-arm64", target: "bun-linux-arm64", expect: { format: "elf", arch: "arm64", executable: true, interpreter: "/lib/ld-linux-aarch64.so.1" } },
  { file: "glassbox-linux-x64-musl", target: "bun-linux-x64-musl", expect: { format: "elf", arch: "x64", executable: true, interpreter: "/lib/ld-musl-x86_64.so.1" } },
  { file: "glassbox-windows-x64.exe", target: "bun-windows-x64", expect: { format: "pe", arch: "x64", pe32plus: true, console: true } },
];

export const SUMS_FILE = "SHA256SUMS";

export interface ReleasedFile {
  file: string;
  bytes: number;
  sha256: string;
}

export function sha256Of(file: string): string {
  const hash = createHash("sha256");
  const fd = fs.openSync(file, "r");
  try {
    const chunk = Buffer.alloc(1 << 20);
    for (let read; (read = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0; ) hash.update(chunk.subarray(0, read));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest("hex");
}

/** `sha256sum`'s own format: the hex digest, two spaces (text mode), the file name. */
export function sumsText(files: ReleasedFile[]): string {
  return files.map(({ sha256, file }) => `${sha256}  ${file}\n`).join("");
}

/** Builds every target into `out` (emptied first), checks each file's headers, writes SHA256SUMS. */
export async function release(out: string, log: (line: string) => void = () => {}, targets: ReleaseTarget[] = RELEASE_TARGETS): Promise<ReleasedFile[]> {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const files: ReleasedFile[] = [];
  // One at a time: each build holds a whole runtime (about 100 MB) in memory.
  for (const { file, target, expect } of targets) {
    const outfile = path.join(out, file);
    const built = await buildBinary(GLASSBOX_ENTRY, outfile, target);
    const found = readBinaryFormat(outfile);
    if (JSON.stringify(found) !== JSON.stringify(expect)) {
      throw new Error(`${file}: built for ${target}, but its headers say ${JSON.stringify(found)} (expected ${JSON.stringify(expect)})`);
    }
    files.push({ file, bytes: built.bytes, sha256: sha256Of(outfile) });
    log(`${file.padEnd(28)} ${megabytes(built.bytes).padStart(9)}  ${target}  ${Math.round(built.ms)} ms`);
  }
  fs.writeFileSync(path.join(out, SUMS_FILE), sumsText(files));
  return files;
}

if (import.meta.main) {
  const flag = process.argv.indexOf("--out");
  const out = path.resolve(flag > 0 ? process.argv[flag + 1]! : path.join(root, "dist/release"));
  try {
    const files = await release(out, (line) => console.log(line));
    console.log(`${path.relative(process.cwd(), path.join(out, SUMS_FILE)) || SUMS_FILE}: ${files.length} files; check with: cd ${path.relative(process.cwd(), out) || "."} && sha256sum -c ${SUMS_FILE}`);
  } catch (error) {
    console.error(`release failed: ${(error as Error).message}`);
    process.exit(1);
  }
}
