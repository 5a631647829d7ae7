/**
 * `npm run release` for real: seven cross-compiled binaries and SHA256SUMS, each file's headers
 * read back, the embedded terminfo present in every one, the binary for this machine run, the
 * Linux arm64 one run under qemu-user and the Windows one under wine where they are installed
 * (.ci/run installs both and insists on them). Skipped with GLASSBOX_SKIP_E2E=1.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pkg from "../../package.json";
import { readBinaryFormat } from "../../scripts/binary-format.ts";
import { SUMS_FILE, release } from "../../scripts/release.ts";
import { commitOf, targetName } from "../../src/platform/build-info.ts";
import { sharedRelease, type BuiltRelease } from "../helpers/release.ts";
import { required } from "../helpers/required.ts";

const root = path.resolve(import.meta.dir, "../..");
const skipped = process.env.GLASSBOX_SKIP_E2E === "1";

/** What each file must be, written out here rather than taken from the release script's own table. */
const EXPECTED: Record<string, string> = {
  "glassbox-darwin-arm64": "mach-o arm64 signed",
  "glassbox-darwin-x64": "mach-o x64 signed",
  "glassbox-linux-x64": "elf x64 /lib64/ld-linux-x86-64.so.2",
  "glassbox-linux-x64-baseline": "elf x64 /lib64/ld-linux-x86-64.so.2",
  "glassbox-linux-arm64": "elf arm64 /lib/ld-linux-aarch64.so.1",
  "glassbox-linux-x64-musl": "elf x64 /lib/ld-musl-x86_64.so.1",
  "glassbox-windows-x64.exe": "pe x64 pe32+ console",
};

function describeHeaders(file: string): string {
  const found = readBinaryFormat(file);
  switch (found.format) {
    case "mach-o":
      return `mach-o ${found.arch}${found.executable ? "" : " not-executable"}${found.signed ? " signed" : ""}`;
    case "elf":
      return `elf ${found.arch}${found.executable ? "" : " not-executable"} ${found.interpreter ?? "static"}`;
    case "pe":
      return `pe ${found.arch}${found.pe32plus ? " pe32+" : ""}${found.console ? " console" : ""}`;
  }
}

/** A headless scripted run that reads README.md and is refused `../secret.txt`. */
function scriptedRun(dir: string): { workspace: string; script: string } {
  const workspace = path.join(dir, "ws");
  fs.cpSync(path.join(root, "workspace"), workspace, { recursive: true });
  fs.writeFileSync(path.join(dir, "secret.txt"), "outside the workspace\n");
  const script = path.join(dir, "script.json");
  const call = (id: string, p: string) => ({ content: "", tool_calls: [{ id, name: "read_file", arguments: { path: p } }] });
  fs.writeFileSync(script, JSON.stringify({ replies: [call("c1", "README.md"), call("c2", "../secret.txt"), { content: "read it" }] }));
  return { workspace, script };
}

function expectScriptedRun(stdout: string): void {
  const events = stdout.split(/\r?\n/).filter(Boolean).map((line) => JSON.parse(line));
  const calls = events.filter((event) => event.kind === "tool_call");
  expect(calls.map((call) => call.decision)).toEqual(["allowed", "refused"]);
  expect(calls[0].result).toContain("semver-lite");
  expect(calls[1].reason).toBe("Argument `path` points outside the workspace; use a path inside it.");
  expect(events.at(-1)).toMatchObject({ kind: "stop", status: "completed", answer: "read it" });
}

function run(argv: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = Bun.spawnSync(argv, { cwd: options.cwd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: os.tmpdir(), ...options.env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

const commit = commitOf(root);

// Builds only this machine's binary (no runtime to fetch), so it runs under GLASSBOX_SKIP_E2E too.
describe("the release checks what it built", () => {
  test("a binary whose headers do not match its target fails the release, and no SHA256SUMS is written", async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-wrong-"));
    try {
      // This machine's own target (no runtime to fetch), expected to be something it is not.
      const target = `bun-${targetName(process.platform, process.arch)}` as Bun.Build.CompileTarget;
      const wrong = { file: "glassbox-wrong", target, expect: { format: "pe", arch: "arm64", pe32plus: true, console: true } as const };
      await expect(release(out, () => {}, [wrong])).rejects.toThrow(`glassbox-wrong: built for ${target}, but its headers say`);
      expect(fs.existsSync(path.join(out, SUMS_FILE))).toBe(false);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.skipIf(skipped)("npm run release", () => {
  let built: BuiltRelease;
  beforeAll(async () => {
    built = await sharedRelease();
  }, 600_000);

  test("writes the seven files and SHA256SUMS, nothing else", () => {
    expect(fs.readdirSync(built.dir).sort()).toEqual([...Object.keys(EXPECTED), SUMS_FILE].sort());
    expect(built.files.map((file) => file.file).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  test("sha256sum -c SHA256SUMS passes, and fails once a byte changes", () => {
    const check = Bun.which("sha256sum") ? ["sha256sum", "-c", SUMS_FILE] : ["shasum", "-a", "256", "-c", SUMS_FILE];
    const ok = run(check, { cwd: built.dir });
    expect(ok.code).toBe(0);
    expect(ok.stdout.trim().split("\n").sort()).toEqual(Object.keys(EXPECTED).map((file) => `${file}: OK`).sort());

    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-sums-"));
    try {
      const victim = "glassbox-linux-arm64";
      // Only the changed file's line: checking the other six again proves nothing new.
      const line = fs.readFileSync(path.join(built.dir, SUMS_FILE), "utf8").split("\n").find((entry) => entry.endsWith(`  ${victim}`));
      fs.writeFileSync(path.join(copy, SUMS_FILE), `${line}\n`);
      const bytes = fs.readFileSync(path.join(built.dir, victim));
      bytes[bytes.length - 1]! ^= 0xff;
      fs.writeFileSync(path.join(copy, victim), bytes);
      const bad = run(check, { cwd: copy });
      expect(bad.code).not.toBe(0);
      expect(bad.stdout).toContain(`${victim}: FAILED`);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  }, 60_000);

  test.each(Object.entries(EXPECTED))("%s's headers say %s", (file, want) => {
    expect(describeHeaders(path.join(built.dir, file))).toBe(want);
  });

  test("every binary carries blessed's terminfo", () => {
    const terminfo = fs.readFileSync(path.join(root, "node_modules/blessed/usr/xterm-256color"));
    for (const file of Object.keys(EXPECTED)) {
      expect({ file, embedded: fs.readFileSync(path.join(built.dir, file)).includes(terminfo) }).toEqual({ file, embedded: true });
    }
  }, 60_000);

  const host = `glassbox-${targetName(process.platform, process.arch)}${process.platform === "win32" ? ".exe" : ""}`;
  test.skipIf(!(host in EXPECTED))(`${host} (this machine's) names version, commit and target`, () => {
    const result = run([path.join(built.dir, host), "--version"]);
    expect(result).toMatchObject({ code: 0, stdout: `glassbox ${pkg.version} (${commit}, ${host.replace(/^glassbox-|\.exe$/g, "")})\n` });
  });

  const qemu = Bun.which("qemu-aarch64-static") ?? Bun.which("qemu-aarch64");
  const arm64Libc = fs.existsSync("/lib/ld-linux-aarch64.so.1");
  describe.skipIf(!required("qemu") && !(qemu && arm64Libc))("glassbox-linux-arm64 under qemu-user", () => {
    test("--version and a scripted run that reads a file and is refused outside the workspace", () => {
      expect({ qemu: !!qemu, arm64Libc }).toEqual({ qemu: true, arm64Libc: true });
      const binary = path.join(built.dir, "glassbox-linux-arm64");
      const version = run([qemu!, "-L", "/", binary, "--version"]);
      expect(version).toMatchObject({ code: 0, stdout: `glassbox ${pkg.version} (${commit}, linux-arm64)\n` });

      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-qemu-"));
      try {
        const { workspace, script } = scriptedRun(dir);
        const result = run([qemu!, "-L", "/", binary, "run", "--json", "--workspace", workspace, "--model", `scripted:${script}`, "read the README"]);
        expect(result.stderr).toBe("");
        expectScriptedRun(result.stdout);
        expect(result.code).toBe(0);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }, 120_000);
  });

  const wine = ["/usr/lib/wine/wine64", Bun.which("wine64"), Bun.which("wine")].find((candidate) => candidate && fs.existsSync(candidate));
  const mingw = Bun.which("x86_64-w64-mingw32-gcc");
  describe.skipIf(!required("wine") && !(wine && mingw))("glassbox-windows-x64.exe under wine", () => {
    test("--version and a scripted run that reads a file and is refused outside the workspace", () => {
      expect({ wine: !!wine, mingw: !!mingw }).toEqual({ wine: true, mingw: true });
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-wine-"));
      try {
        // Wine 8 (Debian 12) lacks bcryptprimitives.dll, which Bun's Windows runtime imports for
        // ProcessPrng: a shim beside the .exe forwards it to RtlGenRandom (docs/platforms.md).
        const fixtures = path.join(root, "test/fixtures/wine");
        const shim = run([mingw!, "-shared", "-O2", "-o", path.join(dir, "bcryptprimitives.dll"), path.join(fixtures, "bcryptprimitives.c"), path.join(fixtures, "bcryptprimitives.def"), "-ladvapi32"]);
        expect(shim.stderr).toBe("");
        fs.copyFileSync(path.join(built.dir, "glassbox-windows-x64.exe"), path.join(dir, "glassbox.exe"));
        const env = { WINEDEBUG: "-all", WINEPREFIX: path.join(dir, "prefix") };
        const version = run([wine!, "glassbox.exe", "--version"], { cwd: dir, env });
        expect(version).toMatchObject({ code: 0, stdout: `glassbox ${pkg.version} (${commit}, windows-x64)\n` });

        const { workspace, script } = scriptedRun(dir);
        const result = run([wine!, "glassbox.exe", "run", "--json", "--workspace", workspace, "--model", `scripted:${script}`, "read the README"], { cwd: dir, env });
        expectScriptedRun(result.stdout);
        expect(result.code).toBe(0);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }, 180_000);
  });
});
