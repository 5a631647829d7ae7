/**
 * Checks run confined, as an unprivileged user (CI runs as root: setpriv drops to nobody, the way
 * a check runs on a laptop). That user runs a compiled copy of the runner, never the checkout,
 * which may be in a folder only its owner can enter. Every case runs in bwrap, in the Landlock fallback, and with the
 * sandbox off, which is the control: what the sandbox hides, the unsandboxed check sees.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Check } from "../../src/tools/checks.ts";
import type { CheckOutcome } from "../../src/tools/checks.ts";
import type { SandboxInfo } from "../../src/sandbox/sandbox.ts";
import { asUnprivileged, compiledForUnprivileged, handOver, unprivilegedFolder } from "../helpers/unprivileged.ts";
import { leftovers, unique } from "../helpers/processes.ts";

const SSH_SECRET = "ssh-key-secret-5c1d";
const ENV_SECRET = "dotenv-secret-9e2a";

/** The compiled check runner: a Bun binary with the runner and the launcher in it. */
let runner: string;
let workspace: string;
let home: string;
let outside: string;
/** The runner's TMPDIR, where runCheck makes each check's private one: removed after the run even when a runner is killed. */
let runnerTmp: string;
const markers: string[] = [];

beforeAll(() => {
  runner = compiledForUnprivileged(join(import.meta.dir, "check-runner.ts"));
  workspace = unprivilegedFolder("sandbox-ws");
  mkdirSync(join(workspace, "src"));
  mkdirSync(join(workspace, ".git"));
  writeFileSync(join(workspace, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(workspace, ".env"), `TOKEN=${ENV_SECRET}\n`);
  handOver(workspace);
  home = unprivilegedFolder("sandbox-home");
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "id_ed25519"), `${SSH_SECRET}\n`);
  mkdirSync(join(home, ".cache"));
  handOver(home);
  outside = unprivilegedFolder("sandbox-outside");
  runnerTmp = unprivilegedFolder("sandbox-tmp");
  // Compiling takes seconds on a loaded machine.
}, 60_000);

afterAll(() => {
  for (const marker of markers) Bun.spawnSync(["pkill", "-KILL", "-f", marker]);
});

/** Runs one check as the unprivileged user through the real runner, in the given kind. */
function run(kind: string, check: Partial<Check> & { argv: string[] }): Promise<{ info: SandboxInfo; outcome: CheckOutcome; seconds: number }> {
  return runAsNobody<{ info: SandboxInfo; outcome: CheckOutcome }>({ kind, workspace, check: { timeout_seconds: 10, env: [], ...check } });
}

/** Runs one run_command call as the unprivileged user through the real tool, in the given kind. */
function runCommand(kind: string, args: { argv: string[]; cwd?: string; timeout_seconds?: number }): Promise<{ info: SandboxInfo; result: string; seconds: number }> {
  return runAsNobody<{ info: SandboxInfo; result: string }>({ kind, workspace, command: { timeout_seconds: 10, ...args } });
}

/** Starts the compiled runner as the unprivileged user and returns the JSON it printed last, with the seconds it took. */
async function runAsNobody<T>(input: object): Promise<T & { seconds: number }> {
  const payload = JSON.stringify(input);
  const started = performance.now();
  const child = Bun.spawn(asUnprivileged([runner, payload]), {
    cwd: workspace,
    env: { PATH: process.env.PATH, HOME: home, LANG: "C", TMPDIR: runnerTmp },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  const seconds = (performance.now() - started) / 1000;
  try {
    return { ...JSON.parse(stdout.trim().split("\n").at(-1)!), seconds };
  } catch {
    throw new Error(`the runner printed no result (exit ${child.exitCode}): ${stderr}${stdout}`);
  }
}

const CONFINED = ["bwrap", "landlock"] as const;
const KINDS = [...CONFINED, "off"] as const;
const confined = (kind: string) => kind !== "off";
/** Each case starts Bun as another user and a check in a sandbox: seconds on a loaded 2-core machine. */
const SLOW = 40_000;

describe.if(process.platform === "linux")("checks in the sandbox, run as an unprivileged user", () => {
  for (const kind of CONFINED) {
    test.concurrent(`${kind} is what ran`, async () => {
      const { info, outcome } = await run(kind, { argv: ["true"] });
      expect(info).toMatchObject({ kind, network: false, secrets_hidden: true });
      expect(outcome.exitCode).toBe(0);
    }, SLOW);
  }

  for (const kind of KINDS) {
    test.concurrent(`${kind}: a key in ~/.ssh and the workspace's .env ${confined(kind) ? "cannot be read" : "can be read (the control)"}`, async () => {
      const { outcome } = await run(kind, { argv: ["sh", "-c", 'cat "$HOME/.ssh/id_ed25519"; cat .env; echo done'] });
      expect(outcome.output).toContain("done");
      for (const secret of [SSH_SECRET, ENV_SECRET]) {
        if (confined(kind)) expect(outcome.output).not.toContain(secret);
        else expect(outcome.output).toContain(secret);
      }
    }, SLOW);

    test.concurrent(`${kind}: expose [".env"] makes .env readable, and only it`, async () => {
      const { outcome } = await run(kind, { argv: ["sh", "-c", 'cat .env; cat "$HOME/.ssh/id_ed25519"; echo done'], expose: [".env"] });
      expect(outcome.output).toContain(ENV_SECRET);
      if (confined(kind)) expect(outcome.output).not.toContain(SSH_SECRET);
    }, SLOW);

    test.concurrent(`${kind}: a write inside the workspace works; outside it and into .git ${confined(kind) ? "fails" : "works (the control)"}`, async () => {
      const tag = unique();
      const script = [
        `echo a > src/inside-${tag}.txt && echo inside-ok`,
        `echo b > ${outside}/out-${tag}.txt && echo outside-ok`,
        `echo c > .git/hook-${tag} && echo git-ok`,
        `echo d > "$TMPDIR/tmp-${tag}" && echo tmp-ok`,
        `echo e > "$HOME/.cache/cache-${tag}" && echo cache-ok`,
      ].join("; ");
      const { outcome } = await run(kind, { argv: ["sh", "-c", script] });
      for (const ok of ["inside-ok", "tmp-ok", "cache-ok"]) expect(outcome.output).toContain(ok);
      for (const refused of ["outside-ok", "git-ok"]) {
        if (confined(kind)) expect(outcome.output).not.toContain(refused);
        else expect(outcome.output).toContain(refused);
      }
    }, SLOW);

    test.concurrent(`${kind}: a loopback listener ${confined(kind) ? "cannot be reached unless network: true" : "can be reached (the control)"}`, async () => {
      const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {}, open(socket) { socket.end(); } } });
      try {
        const argv = ["bash", "-c", `exec 3<>/dev/tcp/127.0.0.1/${server.port} && echo connected; echo done`];
        const off = await run(kind, { argv });
        expect(off.outcome.output).toContain("done");
        if (confined(kind)) expect(off.outcome.output).not.toContain("connected");
        else expect(off.outcome.output).toContain("connected");
        const on = await run(kind, { argv, network: true });
        expect(on.outcome.output).toContain("connected");
      } finally {
        server.stop(true);
      }
    }, SLOW);

    test.concurrent(`${kind}: a background, a double-forked and a setsid daemon all end with the check`, async () => {
      const marker = unique();
      markers.push(marker);
      const script = `sleep 300.${marker} & (sleep 301.${marker} &); setsid sh -c 'exec sleep 302.${marker}' & echo started`;
      const { outcome } = await run(kind, { argv: ["bash", "-c", script] });
      expect(outcome.output).toContain("started");
      expect(await leftovers(marker)).toEqual([]);
    }, SLOW);

    test.concurrent(`${kind}: a daemon holding stdout open does not hold the result past the timeout`, async () => {
      const marker = unique();
      markers.push(marker);
      const script = `setsid sh -c 'exec sleep 3000.${marker}' & exec sleep 30.${marker}`;
      const { outcome } = await run(kind, { argv: ["bash", "-c", script], timeout_seconds: 2 });
      expect(outcome.timedOut).toBe(true);
      // The timeout plus the one second of grace, with room for a loaded machine; the daemon would hold it for 3000 s.
      expect(outcome.seconds).toBeLessThan(2 + 1 + 5);
      expect(await leftovers(marker)).toEqual([]);
    }, SLOW);
  }
});

/**
 * run_command is a check the model proposed: the same runner and sandbox, so the same guarantees
 * (CONTRACT.md "run_command"), proven the same way, with the sandbox off as the control.
 */
describe.if(process.platform === "linux")("commands in the sandbox, run as an unprivileged user", () => {
  beforeAll(() => {
    // Landlock cannot let a new file be made at the workspace's top (docs/sandbox.md), so the writes go to a folder.
    mkdirSync(join(workspace, "src", "deep"), { recursive: true });
    mkdirSync(join(workspace, "lib"));
    handOver(workspace);
  });

  for (const kind of KINDS) {
    test.concurrent(`${kind}: a command may name .env and ~/.ssh; ${confined(kind) ? "the sandbox hides them" : "unconfined it reads them (the control)"}`, async () => {
      const { result } = await runCommand(kind, { argv: ["cat", ".env", `${home}/.ssh/id_ed25519`] });
      for (const secret of [SSH_SECRET, ENV_SECRET]) {
        if (confined(kind)) expect(result).not.toContain(secret);
        else expect(result).toContain(secret);
      }
    }, SLOW);

    test.concurrent(`${kind}: the network is ${confined(kind) ? "off" : "on (the control)"}`, async () => {
      const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {}, open(socket) { socket.end(); } } });
      try {
        // Printed as `connected-2`, so the command line itself (at the result's top) never matches.
        const { result } = await runCommand(kind, { argv: ["bash", "-c", `exec 3<>/dev/tcp/127.0.0.1/${server.port} && echo connected-$((1+1)); echo done`] });
        expect(result).toContain("done");
        if (confined(kind)) expect(result).not.toContain("connected-2");
        else expect(result).toContain("connected-2");
      } finally {
        server.stop(true);
      }
    }, SLOW);

    test.concurrent(`${kind}: cwd src/deep moves where it starts, not the bounds: the whole workspace is writable, outside and .git ${confined(kind) ? "are not" : "are too (the control)"}`, async () => {
      const tag = unique();
      const script = [
        "pwd",
        `echo a > ../../lib/inside-${tag}.txt && echo inside-ok`,
        `echo b > ${outside}/out-${tag}.txt && echo outside-ok`,
        `echo c > ../../.git/hook-${tag} && echo git-ok`,
      ].join("; ");
      const { result } = await runCommand(kind, { argv: ["sh", "-c", script], cwd: "src/deep" });
      expect(result).toContain(`${workspace}/src/deep\n`);
      expect(result).toContain("inside-ok");
      // In bwrap its writes go through an overlay, elsewhere a snapshot taken before it: the journal has them either way.
      const changed = `^Workspace files it changed \\(in the undo journal: glassbox undo restores them\\): .*lib/inside-${tag}\\.txt \\(created, 2 bytes\\)`;
      expect(result).toMatch(new RegExp(changed, "m"));
      for (const refused of ["outside-ok", "git-ok"]) {
        if (confined(kind)) expect(result).not.toContain(refused);
        else expect(result).toContain(refused);
      }
    }, SLOW);

    test.concurrent(`${kind}: at its timeout the command and a setsid daemon it started are killed`, async () => {
      const marker = unique();
      markers.push(marker);
      const { result, seconds } = await runCommand(kind, { argv: ["bash", "-c", `setsid sh -c 'exec sleep 3000.${marker}' & exec sleep 30.${marker}`], timeout_seconds: 2 });
      expect(result).toContain("timed out after 2s and was stopped.");
      expect(seconds).toBeLessThan(25);
      expect(await leftovers(marker)).toEqual([]);
    }, SLOW);
  }
});
