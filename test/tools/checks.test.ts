import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { CappedOutput, CheckSchema, OUTPUT_GRACE_MS, checkEnvironment, runCheck } from "../../src/tools/checks.ts";
import { DIRECT, UNCONFINED } from "../../src/sandbox/detect.ts";
import type { Sandbox } from "../../src/sandbox/sandbox.ts";
import { leftovers, unique } from "../helpers/processes.ts";

const never = new AbortController().signal;

describe("CheckSchema (a check in the config)", () => {
  test("takes the sandbox keys: network, writable, expose", () => {
    const check = { argv: ["npm", "test"], network: true, writable: ["~/.npm"], expose: [".env.test"] };
    expect(CheckSchema.parse(check)).toEqual({ ...check, timeout_seconds: 60, env: [] });
  });

  test("fills in the defaults", () => {
    expect(CheckSchema.parse({ argv: ["bun", "test"] })).toEqual({ argv: ["bun", "test"], timeout_seconds: 60, env: [] });
  });

  const bad: Array<[string, unknown]> = [
    ["an unknown key", { argv: ["x"], shell: true }],
    ["an empty argv", { argv: [] }],
    ["an empty program name", { argv: [""] }],
    ["argv as one string", { argv: "bun test" }],
    ["a zero timeout", { argv: ["x"], timeout_seconds: 0 }],
    ["a negative timeout", { argv: ["x"], timeout_seconds: -1 }],
    ["env as a map", { argv: ["x"], env: { A: "1" } }],
    ["network as a string", { argv: ["x"], network: "yes" }],
    ["writable as one string", { argv: ["x"], writable: "~/.npm" }],
    ["an empty expose path", { argv: ["x"], expose: [""] }],
  ];
  for (const [label, value] of bad) {
    test(`refuses ${label}`, () => {
      expect(CheckSchema.safeParse(value).success).toBe(false);
    });
  }
});

describe("checkEnvironment", () => {
  const from = { PATH: "/bin", HOME: "/home/u", LANG: "C", AWS_SECRET_ACCESS_KEY: "k", OPENAI_API_KEY: "o", NODE_ENV: "test", CI: "1" };

  test("passes only the safe few, and only those that are set", () => {
    expect(checkEnvironment(CheckSchema.parse({ argv: ["x"] }), from)).toEqual({ PATH: "/bin", HOME: "/home/u", LANG: "C" });
  });

  test("adds the ones the check names", () => {
    expect(checkEnvironment(CheckSchema.parse({ argv: ["x"], env: ["NODE_ENV", "CI", "MISSING"] }), from)).toEqual({
      PATH: "/bin",
      HOME: "/home/u",
      LANG: "C",
      NODE_ENV: "test",
      CI: "1",
    });
  });
});

describe("runCheck output capture", () => {
  const KEEP = 32 * 1024;

  const rows: Array<[label: string, bytes: number, dropped: number]> = [
    ["small output", 1000, 0],
    ["exactly both ends", 2 * KEEP, 0],
    ["one byte over", 2 * KEEP + 1, 1],
    ["5 MB", 5_000_000, 5_000_000 - 2 * KEEP],
  ];
  for (const [label, bytes, dropped] of rows) {
    test(`${label}: head and tail kept, ${dropped} bytes counted as dropped`, async () => {
      // Numbered lines, so head and tail can be checked to be the real first and last bytes.
      const script = `let s = ""; for (let i = 0; s.length < ${bytes}; i++) s += "L" + i + "\\n"; process.stdout.write(s.slice(0, ${bytes}));`;
      const full = (() => {
        let s = "";
        for (let i = 0; s.length < bytes; i++) s += "L" + i + "\n";
        return s.slice(0, bytes);
      })();
      const outcome = await runCheck(CheckSchema.parse({ argv: [process.execPath, "-e", script], timeout_seconds: 20 }), tmpdir(), never);
      expect(outcome.exitCode).toBe(0);
      expect(outcome.droppedBytes).toBe(dropped);
      if (dropped === 0) {
        expect(outcome.output).toBe(full);
      } else {
        expect(outcome.output).toBe(`${full.slice(0, KEEP)}\n[… ${dropped} bytes of output dropped …]\n${full.slice(bytes - KEEP)}`);
      }
    });
  }

  test("stdout and stderr are both captured", async () => {
    const outcome = await runCheck(CheckSchema.parse({ argv: ["bash", "-c", "echo to-out; echo to-err >&2"] }), tmpdir(), never);
    expect(outcome.output).toContain("to-out\n");
    expect(outcome.output).toContain("to-err\n");
  });

  test("a program that cannot start is reported, not thrown", async () => {
    const outcome = await runCheck(CheckSchema.parse({ argv: ["definitely-not-a-program-91x"] }), tmpdir(), never);
    expect(outcome).toMatchObject({ notStarted: true, exitCode: null, timedOut: false });
  });

  test("aborting the signal stops the check at once", async () => {
    const abort = new AbortController();
    const pending = runCheck(CheckSchema.parse({ argv: ["sleep", "60"], timeout_seconds: 60 }), tmpdir(), abort.signal);
    abort.abort();
    const started = performance.now();
    const outcome = await pending;
    // Far sooner than the sleep, with room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(outcome).toMatchObject({ interrupted: true, timedOut: false, exitCode: null });
  }, 20_000);

  test("a signal aborted before the check starts stops it at once too", async () => {
    const abort = new AbortController();
    abort.abort();
    const started = performance.now();
    const outcome = await runCheck(CheckSchema.parse({ argv: ["sleep", "60"], timeout_seconds: 60 }), tmpdir(), abort.signal);
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(outcome).toMatchObject({ interrupted: true, exitCode: null });
  }, 20_000);
});

test("the output capture holds about twice its cap in memory however much a check prints", async () => {
  const keep = 32 * 1024;
  const capture = new CappedOutput(keep);
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  let written = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (written >= 20 * 1024 * 1024) return controller.close();
      written += chunk.length;
      controller.enqueue(chunk);
    },
  });
  await capture.drain(stream);
  expect(capture.heldBytes()).toBeLessThanOrEqual(2 * keep + chunk.length);
  expect(capture.droppedBytes()).toBe(written - 2 * keep);
});

describe("how a check is started, with and without the launcher", () => {
  const starters: Array<[label: string, sandbox: Sandbox]> = [
    ["started directly (macOS and Windows without a sandbox)", DIRECT],
    ["started through the launcher (Linux)", UNCONFINED],
  ];
  /** Field 5 of /proc/PID/stat: the process group. */
  const groupOf = (pid: number | string) => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2];
  };
  for (const [label, sandbox] of starters) {
    test(`${label}: stdin is closed, so a reader ends at once`, async () => {
      const outcome = await runCheck(CheckSchema.parse({ argv: ["cat"], timeout_seconds: 10 }), tmpdir(), never, sandbox);
      expect(outcome).toMatchObject({ exitCode: 0, timedOut: false });
    });

    test.if(process.platform === "linux")(`${label}: not in glassbox's process group, so the terminal's Ctrl-C does not reach it`, async () => {
      const outcome = await runCheck(CheckSchema.parse({ argv: ["sh", "-c", "cut -d' ' -f5 /proc/$$/stat"] }), tmpdir(), never, sandbox);
      expect(outcome.exitCode).toBe(0);
      expect(outcome.output.trim()).toMatch(/^\d+$/);
      expect(outcome.output.trim()).not.toBe(groupOf(process.pid));
    });
  }

  test("a daemon that escapes and holds the output open: the result comes a second after the end and says when it was cut", async () => {
    const marker = unique();
    try {
      // Started directly, nothing reaps a setsid daemon: only the output grace keeps the result on time.
      const outcome = await runCheck(CheckSchema.parse({ argv: ["sh", "-c", `setsid sh -c 'exec sleep 300.${marker}' & echo started; sleep 0.3`], timeout_seconds: 10 }), tmpdir(), never, DIRECT);
      expect(outcome.exitCode).toBe(0);
      expect(outcome.output).toBe("started\n");
      expect(outcome.outputCutAt).not.toBeNull();
      expect(outcome.outputCutAt!).toBeGreaterThanOrEqual(OUTPUT_GRACE_MS / 1000);
      // The daemon is still alive: the result did not wait for it.
      expect(Bun.spawnSync(["pgrep", "-f", `300.${marker}`]).stdout.toString().trim()).not.toBe("");
    } finally {
      Bun.spawnSync(["pkill", "-KILL", "-f", marker]);
    }
  }, 15_000);

  test("the launcher reaps that daemon, so nothing is cut", async () => {
    const marker = unique();
    try {
      const outcome = await runCheck(CheckSchema.parse({ argv: ["sh", "-c", `setsid sh -c 'exec sleep 300.${marker}' & echo started`], timeout_seconds: 10 }), tmpdir(), never, UNCONFINED);
      expect(outcome).toMatchObject({ exitCode: 0, output: "started\n", outputCutAt: null });
    } finally {
      Bun.spawnSync(["pkill", "-KILL", "-f", marker]);
    }
  }, 15_000);
});

test("started directly, a background child left by a check that exited is killed with its process group", async () => {
  const marker = unique();
  try {
    const outcome = await runCheck(CheckSchema.parse({ argv: ["sh", "-c", `sleep 300.${marker} & echo started`], timeout_seconds: 10 }), tmpdir(), never, DIRECT);
    expect(outcome).toMatchObject({ exitCode: 0, output: "started\n" });
    expect(await leftovers(marker)).toEqual([]);
  } finally {
    Bun.spawnSync(["pkill", "-KILL", "-f", marker]);
  }
}, 15_000);
