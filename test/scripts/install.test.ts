/**
 * scripts/install.sh end to end, as `curl … | sh` runs it: against a real HTTP server on
 * 127.0.0.1 serving a release folder. Which file it picks is tested with stand-in `uname`,
 * `sysctl` and `ldd` commands ahead of the real ones on PATH and a stand-in release whose
 * "binaries" are shell scripts; the real release (built once, test/helpers/release.ts) is
 * installed and run on this machine, and a corrupted copy of it is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RELEASE_TARGETS, SUMS_FILE, sha256Of, sumsText } from "../../scripts/release.ts";
import { commitOf } from "../../src/platform/build-info.ts";
import { sharedRelease } from "../helpers/release.ts";
import pkg from "../../package.json";

const root = path.resolve(import.meta.dir, "../..");
const INSTALL_SH = path.join(root, "scripts/install.sh");

interface ReleaseServer {
  url: string;
  /** Paths requested, in order. */
  requests: string[];
  /** Files served with their last byte flipped. */
  corrupt: Set<string>;
  stop(): void;
}

function serveRelease(dir: string): ReleaseServer {
  const requests: string[] = [];
  const corrupt = new Set<string>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const name = decodeURIComponent(new URL(request.url).pathname.slice(1));
      requests.push(name);
      const file = path.join(dir, name);
      if (name.includes("/") || !fs.existsSync(file)) return new Response("not found", { status: 404 });
      const bytes = fs.readFileSync(file);
      if (corrupt.has(name)) bytes[bytes.length - 1]! ^= 0xff;
      return new Response(bytes);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, corrupt, stop: () => server.stop(true) };
}

const scratch: string[] = [];
function folder(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `glassbox-install-${name}-`));
  scratch.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

/** Stand-in commands, ahead of the real ones on PATH. */
function fakeCommands(commands: Record<string, string>): string {
  const bin = folder("bin");
  for (const [name, script] of Object.entries(commands)) fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return bin;
}

function fakeUname(system: string, machine: string): Record<string, string> {
  return { uname: `case "$1" in -s) echo ${system} ;; -m) echo ${machine} ;; *) echo ${system} ;; esac` };
}

interface Installed {
  code: number;
  stdout: string;
  stderr: string;
  /** The install folder's entries afterwards. */
  installed: string[];
  /** What the script left in its TMPDIR. */
  leftovers: string[];
  dir: string;
}

/** Runs install.sh as its own process; asynchronously, since the release server lives in this one. */
async function install(env: Record<string, string>, fakeBin?: string): Promise<Installed> {
  const dir = path.join(folder("target"), "bin");
  const tmp = folder("tmp");
  const child = Bun.spawn(["sh", INSTALL_SH], {
    env: { PATH: `${fakeBin ? `${fakeBin}:` : ""}/usr/local/bin:/usr/bin:/bin`, HOME: folder("home"), TMPDIR: tmp, GLASSBOX_INSTALL_DIR: dir, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return {
    code,
    stdout,
    stderr,
    installed: fs.existsSync(dir) ? fs.readdirSync(dir) : [],
    leftovers: fs.readdirSync(tmp),
    dir,
  };
}

const AVX2 = "flags\t\t: fpu sse sse2 avx avx2\n";
const NO_AVX2 = "flags\t\t: fpu sse sse2 avx\n";

describe("install.sh picks this machine's file", () => {
  let fake: ReleaseServer;
  let cpuinfo: { avx2: string; none: string };
  beforeAll(() => {
    // A stand-in release: each "binary" says which file it is when asked its version.
    const dir = folder("fake-release");
    const files = RELEASE_TARGETS.map(({ file }) => {
      fs.writeFileSync(path.join(dir, file), `#!/bin/sh\necho "stand-in ${file}"\n`, { mode: 0o755 });
      return { file, bytes: 0, sha256: sha256Of(path.join(dir, file)) };
    });
    fs.writeFileSync(path.join(dir, SUMS_FILE), sumsText(files));
    fake = serveRelease(dir);
    const info = folder("cpuinfo");
    cpuinfo = { avx2: path.join(info, "avx2"), none: path.join(info, "none") };
    fs.writeFileSync(cpuinfo.avx2, AVX2);
    fs.writeFileSync(cpuinfo.none, NO_AVX2);
  });
  afterAll(() => fake.stop());

  const cases: Array<[string, Record<string, string>, boolean, string, string]> = [
    ["macOS on Apple Silicon", fakeUname("Darwin", "arm64"), true, "glassbox-darwin-arm64", "glassbox"],
    ["macOS on Intel", { ...fakeUname("Darwin", "x86_64"), sysctl: "echo 0" }, true, "glassbox-darwin-x64", "glassbox"],
    ["a Rosetta shell on Apple Silicon", { ...fakeUname("Darwin", "x86_64"), sysctl: '[ "$2" = sysctl.proc_translated ] && echo 1' }, true, "glassbox-darwin-arm64", "glassbox"],
    ["Linux x86-64 with AVX2", { ...fakeUname("Linux", "x86_64"), ldd: "echo 'ldd (Debian GLIBC 2.36-9) 2.36'" }, true, "glassbox-linux-x64", "glassbox"],
    ["Linux x86-64 without AVX2", { ...fakeUname("Linux", "x86_64"), ldd: "echo 'ldd (GNU libc) 2.36'" }, false, "glassbox-linux-x64-baseline", "glassbox"],
    ["Alpine (musl) on x86-64", { ...fakeUname("Linux", "x86_64"), ldd: "echo 'musl libc (x86_64)' >&2; exit 1" }, true, "glassbox-linux-x64-musl", "glassbox"],
    ["Linux arm64", { ...fakeUname("Linux", "aarch64"), ldd: "echo 'ldd (GNU libc) 2.36'" }, true, "glassbox-linux-arm64", "glassbox"],
    ["Git Bash on Windows", fakeUname("MINGW64_NT-10.0-19045", "x86_64"), true, "glassbox-windows-x64.exe", "glassbox.exe"],
  ];
  test.each(cases)("%s", async (_, commands, avx2, file, name) => {
    const result = await install({ GLASSBOX_RELEASE_URL: fake.url, GLASSBOX_CPUINFO: avx2 ? cpuinfo.avx2 : cpuinfo.none }, fakeCommands(commands));
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(fake.requests.slice(-2)).toEqual([SUMS_FILE, file]);
    expect(result.installed).toEqual([name]);
    expect(result.stdout).toContain(`installed stand-in ${file} to ${result.dir}/${name}`);
    expect(result.leftovers).toEqual([]);
  });

  test.each([
    ["a CPU with no build", fakeUname("Linux", "riscv64"), "no glassbox build for the CPU 'riscv64'"],
    ["an OS with no build", fakeUname("FreeBSD", "amd64"), "no glassbox build for the OS 'FreeBSD'"],
    ["musl on arm64", { ...fakeUname("Linux", "aarch64"), ldd: "echo 'musl libc (aarch64)'" }, "no glassbox build for musl on arm64"],
  ])("refuses %s and says so", async (_, commands, message) => {
    const before = fake.requests.length;
    const result = await install({ GLASSBOX_RELEASE_URL: fake.url, GLASSBOX_CPUINFO: cpuinfo.avx2 }, fakeCommands(commands));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(fake.requests.length).toBe(before);
    expect(result.installed).toEqual([]);
  });

  test("a corrupted download is refused and nothing is left behind", async () => {
    fake.corrupt.add("glassbox-linux-arm64");
    try {
      const result = await install({ GLASSBOX_RELEASE_URL: fake.url, GLASSBOX_CPUINFO: cpuinfo.avx2 }, fakeCommands({ ...fakeUname("Linux", "aarch64"), ldd: "echo glibc" }));
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("checksum mismatch for glassbox-linux-arm64");
      expect(result).toMatchObject({ installed: [], leftovers: [] });
    } finally {
      fake.corrupt.clear();
    }
  });

  test("a file that does not start here is not installed, and the musl hint is given", async () => {
    const dir = folder("broken");
    const file = "glassbox-linux-x64-musl";
    fs.writeFileSync(path.join(dir, file), "#!/bin/sh\necho 'Error loading shared library libstdc++.so.6: No such file or directory' >&2\nexit 127\n", { mode: 0o755 });
    fs.writeFileSync(path.join(dir, SUMS_FILE), sumsText([{ file, bytes: 0, sha256: sha256Of(path.join(dir, file)) }]));
    const server = serveRelease(dir);
    try {
      const result = await install({ GLASSBOX_RELEASE_URL: server.url, GLASSBOX_CPUINFO: cpuinfo.avx2 }, fakeCommands({ ...fakeUname("Linux", "x86_64"), ldd: "echo 'musl libc (x86_64)'" }));
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${file} does not start on this machine: Error loading shared library libstdc++.so.6: No such file or directory (on Alpine: apk add libstdc++ libgcc); nothing was installed`);
      expect(result).toMatchObject({ installed: [], leftovers: [] });
    } finally {
      server.stop();
    }
  });

  test("a file SHA256SUMS does not list is refused", async () => {
    const dir = folder("unlisted");
    fs.writeFileSync(path.join(dir, "glassbox-linux-arm64"), "#!/bin/sh\necho hi\n");
    fs.writeFileSync(path.join(dir, SUMS_FILE), `${"0".repeat(64)}  glassbox-linux-x64\n`);
    const server = serveRelease(dir);
    try {
      const result = await install({ GLASSBOX_RELEASE_URL: server.url, GLASSBOX_CPUINFO: cpuinfo.avx2 }, fakeCommands({ ...fakeUname("Linux", "aarch64"), ldd: "echo glibc" }));
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("SHA256SUMS has no line for glassbox-linux-arm64; nothing was installed");
      expect(result).toMatchObject({ installed: [], leftovers: [] });
    } finally {
      server.stop();
    }
  });

  test("GLASSBOX_VERSION picks that release on GitHub; a failed download says what to check", async () => {
    const log = path.join(folder("curl"), "args");
    const result = await install({ GLASSBOX_VERSION: "0.2.0", GLASSBOX_CPUINFO: cpuinfo.avx2 }, fakeCommands({ ...fakeUname("Darwin", "arm64"), curl: `echo "$@" >> ${log}; exit 22` }));
    expect(result.code).toBe(1);
    expect(fs.readFileSync(log, "utf8")).toContain("https://github.com/glassbox-agent/glassbox/releases/download/v0.2.0/SHA256SUMS");
    expect(result.stderr).toContain("cannot download https://github.com/glassbox-agent/glassbox/releases/download/v0.2.0/SHA256SUMS; check the address");
    expect(result).toMatchObject({ installed: [], leftovers: [] });
  });

  test("says how to put the folder on PATH when it is not, and nothing when it is", async () => {
    const env = { GLASSBOX_RELEASE_URL: fake.url, GLASSBOX_CPUINFO: cpuinfo.avx2 };
    const off = await install(env, fakeCommands(fakeUname("Darwin", "arm64")));
    expect(off.stdout).toContain(`is not on your PATH; add it with:`);
    expect(off.stdout).toContain(`export PATH="${off.dir}:$PATH"`);
    const bin = fakeCommands(fakeUname("Darwin", "arm64"));
    const dir = path.join(folder("on-path"), "bin");
    const on = await install({ ...env, GLASSBOX_INSTALL_DIR: dir, PATH: `${bin}:${dir}:/usr/bin:/bin` });
    expect(on.code).toBe(0);
    expect(on.stdout).not.toContain("PATH");
  });
});

describe.skipIf(process.env.GLASSBOX_SKIP_E2E === "1")("install.sh with the real release", () => {
  let real: ReleaseServer;
  beforeAll(async () => {
    real = serveRelease((await sharedRelease()).dir);
  }, 600_000);
  afterAll(() => real?.stop());

  const linuxX64 = process.platform === "linux" && process.arch === "x64";
  test.skipIf(!linuxX64)("installs this machine's binary, which then runs", async () => {
    const result = await install({ GLASSBOX_RELEASE_URL: real.url });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.installed).toEqual(["glassbox"]);
    const version = `glassbox ${pkg.version} (${commitOf(root)}, linux-x64)`;
    expect(result.stdout).toContain(`installed ${version} to ${result.dir}/glassbox`);
    expect(Bun.spawnSync([path.join(result.dir, "glassbox"), "--version"]).stdout.toString()).toBe(`${version}\n`);
    expect(result.leftovers).toEqual([]);
  }, 60_000);

  test.skipIf(!linuxX64)("refuses a corrupted download, says so, and leaves nothing behind", async () => {
    real.corrupt.add("glassbox-linux-x64");
    try {
      const result = await install({ GLASSBOX_RELEASE_URL: real.url });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^glassbox install: checksum mismatch for glassbox-linux-x64: SHA256SUMS says [0-9a-f]{64}, the download is [0-9a-f]{64}; nothing was installed/m);
      expect(result).toMatchObject({ installed: [], leftovers: [] });
    } finally {
      real.corrupt.clear();
    }
  }, 60_000);
});
