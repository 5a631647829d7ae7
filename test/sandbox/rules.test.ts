/** The confinement plan and what each kind makes of it, as tables: this input, these arguments. */
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { confinement, type Confinement } from "../../src/sandbox/rules.ts";
import { bwrapArgs, bwrapProblem, findBwrap, probeBwrapAhead } from "../../src/sandbox/bwrap.ts";
import { seatbeltProfile, SANDBOX_EXEC } from "../../src/sandbox/seatbelt.ts";
import { landlockRules, handledFsRights } from "../../src/sandbox/landlock.ts";
import { chooseSandbox } from "../../src/sandbox/detect.ts";
import { PAYLOAD_VARIABLE, landlockSandbox, subreaperOnly } from "../../src/sandbox/launcher.ts";
import { tempFolder } from "../helpers/workspace.ts";

let ws: string;
let home: string;
let tmp: string;
let rules: Confinement;

beforeAll(() => {
  ws = tempFolder("rules-ws");
  home = tempFolder("rules-home");
  tmp = tempFolder("rules-tmp");
  for (const dir of [".git", ".glassbox", "src"]) mkdirSync(join(ws, dir));
  for (const file of [".env", ".env.local", ".envrc", "README.md"]) writeFileSync(join(ws, file), "x");
  for (const dir of [".ssh", ".cache", ".config/gh", ".config/other"]) mkdirSync(join(home, dir), { recursive: true });
  writeFileSync(join(home, ".netrc"), "machine x");
  rules = confinement({ workspace: ws, home, tmpdir: tmp });
});

describe("confinement", () => {
  test("hides the secrets that exist, as folders or files; .envrc and other config stay", () => {
    expect(rules.hidden).toEqual([
      { path: join(home, ".ssh"), folder: true },
      { path: join(home, ".netrc"), folder: false },
      { path: join(home, ".config/gh"), folder: true },
      { path: join(ws, ".env"), folder: false },
      { path: join(ws, ".env.local"), folder: false },
    ]);
  });

  test("writable: the workspace, the private TMPDIR, ~/.cache; .git and .glassbox read-only; no network", () => {
    expect(rules).toMatchObject({ writable: [ws, tmp, join(home, ".cache")], readOnly: [join(ws, ".git"), join(ws, ".glassbox")], network: false });
  });

  test("expose un-hides a workspace path; writable adds existing paths, ~ in the home", () => {
    const other = tempFolder("rules-other");
    const widened = confinement({ workspace: ws, home, tmpdir: tmp, expose: [".env"], writable: [other, "~/.config/other", "missing-folder"], network: true });
    expect(widened.hidden.map((entry) => entry.path)).not.toContain(join(ws, ".env"));
    expect(widened.hidden.map((entry) => entry.path)).toContain(join(ws, ".env.local"));
    expect(widened.writable).toEqual([ws, tmp, join(home, ".cache"), other, join(home, ".config/other")]);
    expect(widened.network).toBe(true);
  });
});

describe("a command's access to the workspace, as data", () => {
  const ACCESS: Array<[label: string, input: () => Parameters<typeof confinement>[0], writable: () => string[], readOnly: () => string[]]> = [
    ["read-only: the workspace is not writable", () => ({ workspace: ws, home, tmpdir: tmp, access: { kind: "read-only" } }), () => [tmp, join(home, ".cache")], () => []],
    [
      "read-only, the workspace under ~/.cache: ~/.cache is not writable either",
      () => ({ workspace: join(home, ".cache", "project"), home, tmpdir: tmp, access: { kind: "read-only" } }),
      () => [tmp],
      () => [],
    ],
    ["overlay: the workspace stays in the plan (bwrap binds the merged view there)", () => ({ workspace: ws, home, tmpdir: tmp, access: { kind: "overlay", upper: "u", work: "w", merged: "m" } }), () => [ws, tmp, join(home, ".cache")], () => [join(ws, ".git"), join(ws, ".glassbox")]],
  ];
  for (const [label, input, writable, readOnly] of ACCESS) {
    test(label, () => {
      mkdirSync(join(home, ".cache", "project"), { recursive: true });
      const plan = confinement(input());
      expect([plan.writable, plan.readOnly]).toEqual([writable(), readOnly()]);
    });
  }

  test("a nested .env, in a git-ignored folder too, is hidden like a top-level one", () => {
    const deep = tempFolder("rules-deep");
    mkdirSync(join(deep, "a", "b"), { recursive: true });
    mkdirSync(join(deep, "build"));
    for (const file of ["a/b/.env", "build/.env.production", "a/.envrc"]) writeFileSync(join(deep, file), "x");
    writeFileSync(join(deep, ".gitignore"), "build/\n");
    expect(confinement({ workspace: deep, home: undefined, tmpdir: tmp }).hidden.map((entry) => entry.path).sort()).toEqual([join(deep, "a/b/.env"), join(deep, "build/.env.production")]);
  });

  test("bwrap over an overlay: unshare mounts it, bwrap gets the person's ids back and binds the merged view on the workspace", () => {
    const plan = confinement({ workspace: ws, home, tmpdir: tmp, access: { kind: "overlay", upper: "/u", work: "/w", merged: "/m" } });
    const args = bwrapArgs("/usr/bin/bwrap", ["true"], plan, { uid: 1000, gid: 1001 });
    expect(args.slice(1, 5)).toEqual(["--user", "--map-root-user", "--mount", "--"]);
    expect(args.slice(args.indexOf("/usr/bin/bwrap"), args.indexOf("/usr/bin/bwrap") + 6)).toEqual(["/usr/bin/bwrap", "--unshare-user", "--uid", "1000", "--gid", "1001"]);
    expect(args.join(" ")).toContain(`--bind /m ${ws} `);
    expect(args.join(" ")).toContain(`--ro-bind ${join(ws, ".git")} ${join(ws, ".git")}`);
  });

  test("a workspace under ~/.cache: ~/.cache is bound first, so the overlay's view of the workspace stays on top", () => {
    const inCache = join(home, ".cache", "project");
    mkdirSync(inCache, { recursive: true });
    const plan = confinement({ workspace: inCache, home, tmpdir: tmp, access: { kind: "overlay", upper: "/u", work: "/w", merged: "/m" } });
    const binds = bwrapArgs("/usr/bin/bwrap", ["true"], plan).flatMap((arg, i, all) => (arg === "--bind" ? [all[i + 2]] : []));
    expect(binds.indexOf(join(home, ".cache"))).toBeLessThan(binds.indexOf(inCache));
  });
});

describe("bwrap's arguments", () => {
  const args = () => bwrapArgs("/usr/bin/bwrap", ["bun", "test"], rules);
  const pairs = (flag: string) => args().flatMap((arg, i, all) => (arg === flag ? [all.slice(i + 1, i + 3).join(" ")] : []));

  test("a new session, its own PID namespace, dies with glassbox, no network, / read-only", () => {
    expect(args().slice(0, 6)).toEqual(["/usr/bin/bwrap", "--new-session", "--die-with-parent", "--unshare-pid", "--unshare-net", "--ro-bind"]);
    expect(bwrapArgs("/usr/bin/bwrap", ["x"], { ...rules, network: true })).not.toContain("--unshare-net");
  });

  test("the writable folders bound writable, .git read-only after them, secrets covered last, then the command", () => {
    expect(pairs("--bind")).toEqual([ws, tmp, join(home, ".cache")].map((path) => `${path} ${path}`));
    expect(pairs("--ro-bind")).toEqual(["/ /", `${join(ws, ".git")} ${join(ws, ".git")}`, `${join(ws, ".glassbox")} ${join(ws, ".glassbox")}`, `/dev/null ${join(home, ".netrc")}`, `/dev/null ${join(ws, ".env")}`, `/dev/null ${join(ws, ".env.local")}`]);
    expect(args().filter((arg, i, all) => all[i - 1] === "--tmpfs")).toEqual([join(home, ".ssh"), join(home, ".config/gh")]);
    expect(args().slice(-5)).toEqual(["--chdir", ws, "--", "bun", "test"]);
  });
});

describe("the Seatbelt profile (macOS; run for real by the macOS CI job)", () => {
  const profile = () => seatbeltProfile(rules);

  test("denies by default and allows reading, then denies each secret after that", () => {
    const lines = profile().split("\n");
    expect(lines.slice(0, 2)).toEqual(["(version 1)", "(deny default)"]);
    const allowRead = lines.indexOf("(allow file-read*)");
    expect(allowRead).toBeGreaterThan(1);
    expect(lines.indexOf(`(deny file-read* (subpath "${join(home, ".ssh")}"))`)).toBeGreaterThan(allowRead);
    expect(lines).toContain(`(deny file-read* (literal "${join(ws, ".env")}"))`);
  });

  test("writes only in the writable folders, not .git; no network unless asked", () => {
    const text = profile();
    expect(text).toContain(`(allow file-write* (subpath "${ws}") (subpath "${tmp}")`);
    expect(text).toContain(`(deny file-write* (subpath "${join(ws, ".git")}"))`);
    expect(text).not.toContain("network");
    expect(seatbeltProfile({ ...rules, network: true })).toContain("(allow network*)");
  });

  test("quotes and backslashes in a path cannot end the string", () => {
    const odd = seatbeltProfile({ ...rules, writable: ['/tmp/a"b\\c'] });
    expect(odd).toContain('(subpath "/tmp/a\\"b\\\\c")');
  });

  test("the sandbox runs through the fixed /usr/bin/sandbox-exec", () => {
    const choice = chooseSandbox({ mode: "auto", network: false, platform: "darwin", env: {}, exists: (path) => path === SANDBOX_EXEC });
    expect(choice.info.kind).toBe("seatbelt");
    expect(choice.sandbox.command(["bun", "test"], rules, {}).argv).toEqual([SANDBOX_EXEC, "-p", seatbeltProfile(rules), "bun", "test"]);
  });
});

describe("Landlock's rules", () => {
  test("nothing is granted on a secret or beneath it, and .git gets no write right", () => {
    const granted = landlockRules(rules, 7);
    const secrets = rules.hidden.map((entry) => entry.path);
    for (const rule of granted) for (const secret of secrets) expect(rule.path === secret || rule.path.startsWith(secret + "/")).toBe(false);
    const MAKE_REG = 1n << 8n;
    const rightsOn = (path: string) => granted.filter((rule) => rule.path === path).reduce((all, rule) => all | rule.rights, 0n);
    expect(rightsOn(join(ws, ".git")) & MAKE_REG).toBe(0n);
    expect(rightsOn(join(ws, "src")) & MAKE_REG).toBe(MAKE_REG);
  });

  test("a right the kernel's ABI does not know is never asked for", () => {
    for (const rule of landlockRules(rules, 1)) expect(rule.rights & ~handledFsRights(1)).toBe(0n);
  });
});

describe("which sandbox", () => {
  test("bwrap off PATH (and not at the fixed path) falls back to Landlock, saying why", () => {
    const choice = chooseSandbox({ mode: "auto", network: false, platform: "linux", env: { PATH: tmp }, fixedBwrap: [], abi: () => 7 });
    expect(choice.info).toEqual({ kind: "landlock", network: false, secrets_hidden: true, reason: "Landlock ABI 7 with a subreaper; bwrap: bwrap not found on PATH or in /usr/bin" });
    expect(findBwrap(tmp, [])).toBeNull();
  });

  test("neither: none, with what is missing and how to get it", () => {
    const choice = chooseSandbox({ mode: "require", network: false, platform: "linux", env: { PATH: tmp }, fixedBwrap: [], abi: () => 0 });
    expect(choice.info.kind).toBe("none");
    expect(choice.missing).toContain("bwrap not found");
    expect(choice.missing).toContain("the kernel has no Landlock");
    expect(choice.missing).toContain("apt-get install bubblewrap");
  });

  test("Windows: none, and says glassbox has no sandbox there yet", () => {
    const choice = chooseSandbox({ mode: "auto", network: false, platform: "win32", env: {} });
    expect(choice.info).toMatchObject({ kind: "none", secrets_hidden: false });
    expect(choice.missing).toContain("no sandbox for win32");
  });

  test("off: none, whatever is available", () => {
    expect(chooseSandbox({ mode: "off", network: false, platform: "linux", env: process.env }).info.kind).toBe("none");
  });
});

describe("the launcher's command", () => {
  test("the payload travels in the environment, not in argv that every user can read; BUN_BE_BUN only reaches the check", () => {
    const launch = landlockSandbox.command(["/usr/bin/bun", "test"], rules, { PATH: "/bin", BUN_BE_BUN: "1", API_TOKEN: "t0ken" });
    expect(launch.argv.join(" ")).not.toContain("t0ken");
    expect(launch.cwd).toBe(tmp);
    expect(launch.env.BUN_BE_BUN).toBeUndefined();
    const payload = JSON.parse(launch.env[PAYLOAD_VARIABLE]!);
    expect(payload).toMatchObject({ argv: ["/usr/bin/bun", "test"], cwd: ws, env: { PATH: "/bin", BUN_BE_BUN: "1", API_TOKEN: "t0ken" } });
    expect(payload.rules).toEqual(JSON.parse(JSON.stringify(rules)));
    expect(JSON.parse(subreaperOnly.command(["x"], rules, {}).env[PAYLOAD_VARIABLE]!).rules).toBeNull();
  });
});

describe("bwrap's test run, started ahead", () => {
  /** A bwrap that cannot make namespaces: says why on stderr, and counts how often it ran. */
  function failingBwrap(): { bwrap: string; runs: () => number } {
    const dir = tempFolder("fake-bwrap");
    const bwrap = join(dir, "bwrap");
    const count = join(dir, "runs");
    writeFileSync(bwrap, `#!/bin/sh\necho run >> ${count}\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n`, { mode: 0o755 });
    return { bwrap, runs: () => (existsSync(count) ? readFileSync(count, "utf8").split("\n").filter(Boolean).length : 0) };
  }

  test("the answer it leaves is the one bwrapProblem() gives, and bwrap is not run again", async () => {
    const { bwrap, runs } = failingBwrap();
    await probeBwrapAhead(bwrap);
    expect(runs()).toBe(1);
    expect(bwrapProblem(bwrap)).toBe("bwrap: setting up uid map: Permission denied");
    expect(runs()).toBe(1);
  });

  test("the same answer as asking at once", () => {
    const { bwrap } = failingBwrap();
    expect(bwrapProblem(bwrap)).toBe("bwrap: setting up uid map: Permission denied");
  });
});
