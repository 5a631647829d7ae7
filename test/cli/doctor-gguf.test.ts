/**
 * `doctor --model gguf:PATH` against the test suite's real llama-server: it shows the command
 * line it starts the server with, starts it for its probes, and stops it before it exits. What
 * `run` refuses before anything starts (no binary, a file that is not a whole GGUF) doctor
 * refuses the same way: exit 2, one line on stderr; a server that starts and will not load is a
 * FAIL line, as any other probe that fails.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { llamaServerExecutable, testModel } from "../../scripts/llama-server.ts";
import { glassbox } from "../helpers/cli.ts";
import { makeWorkspace, tempFolder } from "../helpers/workspace.ts";
import { LLAMA_START_TIMEOUT, withoutLlama } from "../helpers/llama.ts";
import { alive, modelCopy, serversOf, truncatedCopy } from "../helpers/gguf.ts";

describe.skipIf(await withoutLlama())("doctor --model gguf:PATH", () => {
  let env: Record<string, string>;
  let finish: string;
  beforeAll(async () => {
    env = { GLASSBOX_LLAMA_SERVER: await llamaServerExecutable() };
    finish = await testModel("finish");
  }, LLAMA_START_TIMEOUT);

  /** A toy workspace with these config keys; sandbox off, so no machine's missing sandbox fails the exit code. */
  const workspaceWith = (config: Record<string, unknown> = {}) => {
    const { root } = makeWorkspace();
    const path = join(root, "glassbox.json");
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), sandbox: "off", ...config }));
    return root;
  };

  const doctor = (model: string, ws: string, extraEnv = env) => glassbox(["doctor", "--model", `gguf:${model}`, "--workspace", ws], { env: extraEnv, timeoutMs: 90_000 });

  test("shows the command line, starts the server for its probes (tool calls: native), and leaves none running", async () => {
    const model = modelCopy(finish);
    const result = await doctor(model, workspaceWith());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`ok    llama-server command: ${env.GLASSBOX_LLAMA_SERVER} -m ${model} --jinja -np 1 --host 127.0.0.1 --port PORT -c 32768 (PORT: a free one)`);
    const pid = Number(result.stdout.match(/ok {4}started llama-server \(pid (\d+), port \d+\), model loaded in \d+ ms; log .+llama-server\.log/)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(result.stdout).toContain("ok    context size 32768 tokens per slot");
    expect(result.stdout).toContain("ok    tool calls: native");
    // Stopped before doctor exited, not by the watchdog a second later.
    expect(alive(pid)).toBe(false);
    expect(serversOf(model)).toEqual([]);
  }, 120_000);

  test("a server that starts and does not load: a FAIL line quoting its log, exit 1, and none left", async () => {
    const model = modelCopy(finish);
    const result = await doctor(model, workspaceWith({ llama_server: { args: ["--no-such-flag"] } }));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`--port PORT -c 32768 --no-such-flag`);
    expect(result.stdout).toMatch(/FAIL {2}llama-server did not start: llama-server exited with code \d+ before it was ready: .*no-such-flag/);
    expect(serversOf(model)).toEqual([]);
  }, 120_000);

  describe("refused as run refuses them, before anything starts: exit 2, one line", () => {
    const refused = async (model: string, extraEnv: Record<string, string>, mentions: RegExp) => {
      const ws = makeWorkspace().root;
      const result = await doctor(model, ws, extraEnv);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split("\n")).toEqual([expect.stringMatching(mentions)]);
      expect(existsSync(join(ws, ".glassbox", "llama-server.log"))).toBe(false);
    };

    test("no llama-server", async () => {
      await refused(finish, { GLASSBOX_LLAMA_SERVER: "", PATH: "/nonexistent" }, /^glassbox: llama-server is not on PATH; install llama\.cpp/);
    });

    test("a file that is not GGUF", async () => {
      const fake = join(tempFolder("gguf"), "model.gguf");
      writeFileSync(fake, "<html>404 Not Found</html>");
      await refused(fake, env, /^glassbox: .+model\.gguf is not a GGUF file/);
    });

    test("a GGUF cut short", async () => {
      const cut = truncatedCopy(finish);
      await refused(cut, env, /^glassbox: .+cut\.gguf is truncated/);
      expect(serversOf(cut)).toEqual([]);
    });
  });
});
